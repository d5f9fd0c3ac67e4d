package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestCatalog(t *testing.T) { i18ntest.CheckCatalog(t, "bot.") }

// memPrefs is a LangPrefs in memory; err fails every call.
type memPrefs struct {
	mu  sync.Mutex
	m   map[string]i18n.Lang
	err error
}

func (p *memPrefs) Lang(_ context.Context, user string) (i18n.Lang, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return 0, false, p.err
	}
	l, ok := p.m[user]
	return l, ok, nil
}

func (p *memPrefs) SetLang(_ context.Context, user string, l i18n.Lang, ok bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.m == nil {
		p.m = map[string]i18n.Lang{}
	}
	if ok {
		p.m[user] = l
	} else {
		delete(p.m, user)
	}
	return nil
}

// fakeUsers answers users.info with locales, counting calls.
type fakeUsers struct {
	locales map[string]string
	err     error
	calls   int
}

func (f *fakeUsers) GetUserInfoContext(_ context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return &slack.User{ID: user, Locale: f.locales[user]}, nil
}

func TestChooseLang(t *testing.T) {
	errDown := errors.New("down")
	tests := []struct {
		name     string
		prefs    *memPrefs
		locales  *fakeUsers
		def      i18n.Lang
		asked    i18n.Lang
		askedOK  bool
		want     i18n.Lang
		wantFrom LangSource
	}{
		{"preference wins over the question", &memPrefs{m: map[string]i18n.Lang{"U1": i18n.English}}, &fakeUsers{locales: map[string]string{"U1": "ja-JP"}}, i18n.Chinese, i18n.French, true, i18n.English, LangFromPreference},
		{"question over locale", &memPrefs{}, &fakeUsers{locales: map[string]string{"U1": "ja-JP"}}, i18n.Chinese, i18n.French, true, i18n.French, LangFromQuestion},
		{"locale when the question tells none", &memPrefs{}, &fakeUsers{locales: map[string]string{"U1": "ja-JP"}}, i18n.Chinese, 0, false, i18n.Japanese, LangFromLocale},
		{"zh-CN locale", nil, &fakeUsers{locales: map[string]string{"U1": "zh-CN"}}, i18n.English, 0, false, i18n.Chinese, LangFromLocale},
		{"a locale kueuebot does not speak: default", nil, &fakeUsers{locales: map[string]string{"U1": "de-DE"}}, i18n.French, 0, false, i18n.French, LangFromDefault},
		{"no locale: default", nil, &fakeUsers{}, i18n.Japanese, 0, false, i18n.Japanese, LangFromDefault},
		{"failing store is skipped", &memPrefs{err: errDown}, &fakeUsers{locales: map[string]string{"U1": "fr-FR"}}, i18n.English, 0, false, i18n.French, LangFromLocale},
		{"failing users.info is skipped", nil, &fakeUsers{err: errDown}, i18n.Chinese, 0, false, i18n.Chinese, LangFromDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := &Languages{Default: tt.def, Locales: &SlackLocales{API: tt.locales}}
			if tt.prefs != nil {
				ls.Prefs = tt.prefs
			}
			got, from := ls.Choose(context.Background(), "U1", tt.asked, tt.askedOK)
			if got != tt.want || from != tt.wantFrom {
				t.Errorf("Choose = %v from %s, want %v from %s", got, from, tt.want, tt.wantFrom)
			}
		})
	}
	// The locale is read once per TTL, not per question.
	users := &fakeUsers{locales: map[string]string{"U1": "ja-JP"}}
	ls := &Languages{Locales: &SlackLocales{API: users}}
	for range 3 {
		ls.Choose(context.Background(), "U1", 0, false)
	}
	if users.calls != 1 {
		t.Errorf("users.info called %d times for 3 questions, want 1", users.calls)
	}
	// A question in a language does not need the locale.
	ls.Choose(context.Background(), "U2", i18n.French, true)
	if users.calls != 1 {
		t.Errorf("users.info called for a question whose language was known")
	}
	var nilLs *Languages
	if l, _ := nilLs.Choose(context.Background(), "U1", i18n.Japanese, true); l != i18n.Japanese {
		t.Errorf("no Languages: %v, want the question's language", l)
	}
}

// The answer, its notices and buttons come in the chosen language, and
// "answer in English" is remembered over the question's language.
func TestAskInLanguages(t *testing.T) {
	prefs := &memPrefs{}
	rep := waitingReport()
	rep.Verdict.HeadlineMsg = i18n.M("diagnose.cqStopped", i18n.Obj("ClusterQueue", "", "cq-gpu"), i18n.Ref("jobset", "team-a", "train-7"))
	bot := &Bot{Asker: &Asker{Resolve: testResolver(), Explain: &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": rep}},
		Lang: &Languages{Prefs: prefs, Locales: &SlackLocales{API: &fakeUsers{locales: map[string]string{alice.ID: "ja-JP"}}}}}}
	answer := func(text string) (Reply, string) {
		r := bot.Answer(context.Background(), dmEvent(alice, text))
		return r, blocks.Text(r.Message.Blocks)
	}
	questions := map[i18n.Lang]string{
		i18n.English:  "why is train-7 waiting?",
		i18n.French:   "pourquoi train-7 attend ?",
		i18n.Japanese: "train-7 はなぜ待っているの？",
		i18n.Chinese:  "为什么train-7在等待？",
	}
	for l, q := range questions {
		_, got := answer(q)
		if !strings.Contains(got, i18n.Render(l, rep.Verdict.HeadlineMsg)) {
			t.Errorf("%s: %q: the headline is not in %s:\n%s", l, q, l, got)
		}
		if b := "[" + i18n.Render(l, i18n.M("blocks.button.refresh")) + "]"; !strings.Contains(got, b) {
			t.Errorf("%s: no %s button:\n%s", l, b, got)
		}
		if l != i18n.English {
			i18ntest.AssertTranslated(t, l, got, "train-7", "team-a", "cq-gpu", "jobset-train-7-3f2a1", "kubectl -n team-a edit jobset train-7", "Ask for 4 GPUs instead of 8.", "It needs 8 GPUs; 4 are free.")
		}
	}
	// A bare name tells no language: the Slack locale (ja-JP) decides.
	if _, got := answer("train-7"); !strings.Contains(got, i18n.Render(i18n.Japanese, rep.Verdict.HeadlineMsg)) {
		t.Errorf("bare name: not in the Slack locale's Japanese:\n%s", got)
	}
	// "answer in English" is remembered and wins over the question's language.
	r, got := answer("answer in English")
	if r.Verdict != "language" || !strings.Contains(got, "English") {
		t.Fatalf("answer in English: %s %q", r.Verdict, got)
	}
	if l, ok, _ := prefs.Lang(context.Background(), alice.ID); !ok || l != i18n.English {
		t.Fatalf("preference %v %v, want English remembered", l, ok)
	}
	if _, got := answer("pourquoi train-7 attend ?"); !strings.Contains(got, i18n.Render(i18n.English, rep.Verdict.HeadlineMsg)) {
		t.Errorf("after answer in English, a French question: not in English:\n%s", got)
	}
	// The confirmation of "réponds en français" is in French; "auto" forgets.
	if _, got := answer("réponds en français"); !strings.Contains(got, "Désormais") {
		t.Errorf("réponds en français: %q", got)
	}
	if _, got := answer("/kueue language auto"); !strings.Contains(got, "質問") { // the locale's Japanese
		t.Errorf("language auto: %q, want the Japanese confirmation", got)
	}
	if _, ok, _ := prefs.Lang(context.Background(), alice.ID); ok {
		t.Error("language auto did not forget the preference")
	}
	// A refusal is in the question's language too.
	r = bot.Answer(context.Background(), dmEvent(carol, "pourquoi train-7 attend ?"))
	if got := blocks.Text(r.Message.Blocks); !strings.Contains(got, "Je ne peux pas consulter cela pour vous") {
		t.Errorf("refusal of a French question: %q", got)
	}
	// The help in Chinese.
	if _, got := answer("帮助"); !strings.Contains(got, "如何向 kueuebot 提问") {
		t.Errorf("help in Chinese: %q", got)
	}
}

// The App Home's menu remembers the choice and shows the tab in it.
func TestHomeLanguageMenu(t *testing.T) {
	prefs := &memPrefs{}
	bot := &Bot{Asker: &Asker{Resolve: testResolver(), Explain: &fakeDiagnoser{}, Lang: &Languages{Prefs: prefs}}}
	ev := homeEvent(alice)
	ev.ActionID, ev.Value = ActionLanguage, "zh"
	r := bot.Answer(context.Background(), ev)
	if r.Home == nil || r.Verdict != "language" {
		t.Fatalf("menu pick: verdict %s, home %v", r.Verdict, r.Home != nil)
	}
	if l, ok, _ := prefs.Lang(context.Background(), alice.ID); !ok || l != i18n.Chinese {
		t.Fatalf("preference %v %v, want zh", l, ok)
	}
	got := blocks.Text(r.Home.Blocks.BlockSet)
	if !strings.Contains(got, "你的作业") || !strings.Contains(got, "回答语言") {
		t.Errorf("home after choosing zh:\n%s", got)
	}
	sec, ok := r.Home.Blocks.BlockSet[0].(*slack.SectionBlock)
	if !ok || sec.Accessory == nil || sec.Accessory.SelectElement == nil || sec.Accessory.SelectElement.InitialOption.Value != "zh" {
		t.Errorf("the menu does not show zh selected: %#v", r.Home.Blocks.BlockSet[0])
	}
}

func dmEvent(u rbac.SlackUser, text string) *event.Event {
	return &event.Event{Entry: event.EntryDM, User: u, Channel: "D0DM", Text: text, MessageTS: "1.1"}
}

func homeEvent(u rbac.SlackUser) *event.Event {
	return &event.Event{Entry: event.EntryButton, User: u, InHome: true}
}

// An explain error for the user is shown in the reply's language (its
// English when the question is English), for a diagnosis and a list.
func TestExplainErrorInLanguages(t *testing.T) {
	m := i18n.M("explain.unknownCluster", i18n.Name("gpu-south"), i18n.Commas(i18n.Names("gpu-west", "gpu-east")...))
	uerr := &explain.Error{Message: m.String(), Msg: m}
	bot := &Bot{Asker: &Asker{Resolve: testResolver(), Explain: &fakeDiagnoser{err: uerr}}}
	questions := map[i18n.Lang]string{
		i18n.English:  "why is train-7 waiting?",
		i18n.French:   "pourquoi train-7 attend ?",
		i18n.Japanese: "train-7 はなぜ待っているの？",
		i18n.Chinese:  "为什么train-7在等待？",
	}
	for l, q := range questions {
		r := bot.Answer(context.Background(), dmEvent(alice, q))
		got := blocks.Text(r.Message.Blocks)
		if !strings.Contains(got, blocks.Paragraph(m.In(l))) {
			t.Errorf("%s: the error is not in %s:\n%s", l, l, got)
		}
		if l != i18n.English {
			i18ntest.AssertTranslated(t, l, got, "gpu-south", "gpu-west", "gpu-east", "train-7")
		}
	}
}

// TestReadErrorInLanguages: a read the diagnosis needed that failed with a
// fault of the cluster is answered in the asker's language.
func TestReadErrorInLanguages(t *testing.T) {
	re := &fetch.ReadError{Kind: fetch.KindWorkload, Namespace: "team-a", Name: "job-train-7", Class: fetch.FaultUnreachable,
		Err: errors.New("dial tcp: connection refused")}
	bot := &Bot{Asker: &Asker{Resolve: testResolver(), Explain: &fakeDiagnoser{err: re}}}
	for l, q := range map[i18n.Lang]string{i18n.English: "why is train-7 waiting?", i18n.French: "pourquoi train-7 attend ?"} {
		got := blocks.Text(bot.Answer(context.Background(), dmEvent(alice, q)).Message.Blocks)
		if !strings.Contains(got, blocks.Paragraph(re.UserMessageIn(l))) {
			t.Errorf("%s: the read error is not in %s:\n%s", l, l, got)
		}
	}
	if !strings.Contains(re.UserMessageIn(i18n.French), "n’a pas pu être joint") {
		t.Errorf("French %q", re.UserMessageIn(i18n.French))
	}
}
