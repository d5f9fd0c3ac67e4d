package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack/socketmode"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/ops"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

const (
	supportChannel = "C0SUPPORT"
	onCallGroup    = "S0ONCALL"
)

type triageHarness struct {
	*socketHarness
	triage *triage.Triage
	jobs   *fakeJobs
	mu     sync.Mutex
	clock  time.Time
	n      int
}

// startTriage runs the Socket Mode transport with triage on
// supportChannel, against the fake Slack.
func startTriage(t *testing.T, detail string) *triageHarness {
	t.Helper()
	fs := slackfake.New(t)
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": detailedReport()}}
	res := testResolver()
	jobs := &fakeJobs{}
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", AppToken: "xapp-test", APIURL: fs.APIURL()})
	tr := triage.New([]string{supportChannel}, config.DefaultTriagePatterns(), detail, 10*time.Minute, onCallGroup)
	th := &triageHarness{triage: tr, jobs: jobs, clock: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	tr.Now = func() time.Time { th.mu.Lock(); defer th.mu.Unlock(); return th.clock }
	b := &Bot{Asker: &Asker{Resolve: res, Explain: diag, Jobs: jobs}, Replier: &delivery.SlackReplier{API: api}, Triage: tr}
	disp := dispatch.New(b, dispatch.Options{})
	sm := &transport.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: &transport.Decoder{Triage: tr}, Ready: &ops.Readiness{}}
	ctx, cancel := context.WithCancel(context.Background())
	h := &socketHarness{fs: fs, disp: disp, diag: diag, res: res, cancel: cancel, errc: make(chan error, 1)}
	go func() { h.errc <- sm.Run(ctx) }()
	h.conn = slackfake.Receive(t, fs.Conns, "the Socket Mode connection")
	t.Cleanup(func() {
		cancel()
		_ = disp.Shutdown(context.Background())
	})
	th.socketHarness = h
	return th
}

func (th *triageHarness) advance(d time.Duration) {
	th.mu.Lock()
	defer th.mu.Unlock()
	th.clock = th.clock.Add(d)
}

// message sends a message.channels event and returns its ts.
func (th *triageHarness) message(t *testing.T, user, channel, thread, text string, extra map[string]any) string {
	t.Helper()
	th.n++
	ts := fmt.Sprintf("1700000100.%06d", th.n)
	ev := slackfake.ChannelMessage(user, channel, ts, thread, text)
	for k, v := range extra {
		ev[k] = v
	}
	id := "env-" + ts
	th.send(t, slackfake.EventsEnvelope(id, "Ev"+ts, 0, ev))
	return ts
}

func expect(t *testing.T, p slackfake.Post, method, reaction string) {
	t.Helper()
	if p.Method != method || p.Reaction != reaction {
		t.Fatalf("got %s %s (%+v), want %s %s", p.Method, p.Reaction, p, method, reaction)
	}
}

// answerPosts reads the writes of one triage answer: eyes, the thread
// answer, the private answer (summary mode), eyes off, the check mark.
func (th *triageHarness) answer(t *testing.T, ts string, private bool) (thread, eph slackfake.Post) {
	t.Helper()
	eyes := th.post(t)
	expect(t, eyes, "reactions.add", "eyes")
	if eyes.Channel != supportChannel || eyes.TS != ts {
		t.Errorf("eyes on %s/%s, want %s/%s", eyes.Channel, eyes.TS, supportChannel, ts)
	}
	thread = th.post(t)
	if thread.Method != "chat.postMessage" || thread.Channel != supportChannel || thread.ThreadTS != ts {
		t.Fatalf("thread answer: %+v, want chat.postMessage in thread %s", thread, ts)
	}
	if private {
		eph = th.post(t)
		if eph.Method != "chat.postEphemeral" || eph.User != alice.ID || eph.ThreadTS != ts {
			t.Fatalf("private answer: %+v, want chat.postEphemeral to %s in thread %s", eph, alice.ID, ts)
		}
	}
	expect(t, th.post(t), "reactions.remove", "eyes")
	expect(t, th.post(t), "reactions.add", "white_check_mark")
	return thread, eph
}

// TestTriageSummary: a stuck-job message gets the eyes at once, the
// verdict code and headline in its thread, the full answer privately to
// the poster (read as them), then the check mark; buttons carry the job
// only.
func TestTriageSummary(t *testing.T) {
	th := startTriage(t, triage.Summary)
	ts := th.message(t, alice.ID, supportChannel, "", "hi, train-7 has been stuck since this morning", nil)
	thread, eph := th.answer(t, ts, true)
	tt := textOf(t, thread.Blocks)
	for _, want := range []string{"WaitingForQuota", "train-7 waits for quota in cq-gpu", "<@" + alice.ID + ">", "action=" + blocks.ActionEscalate, "action=" + blocks.ActionPick, "value=" + trainRef} {
		if !strings.Contains(tt, want) {
			t.Errorf("thread summary lacks %q:\n%s", want, tt)
		}
	}
	for _, leak := range []string{"It needs 8 GPUs", "Ask for 4 GPUs", "insufficient quota", "gpu-a100"} {
		if strings.Contains(tt, leak) {
			t.Errorf("thread summary shows %q, which is for the poster only:\n%s", leak, tt)
		}
	}
	et := textOf(t, eph.Blocks)
	for _, want := range []string{"It needs 8 GPUs", "Ask for 4 GPUs", "action=" + blocks.ActionEscalate} {
		if !strings.Contains(et, want) {
			t.Errorf("private answer lacks %q:\n%s", want, et)
		}
	}
	calls := th.diag.Calls()
	if len(calls) != 1 || calls[0].ID.User != aliceID.User || calls[0].Req.Name != "train-7" {
		t.Errorf("diagnosis calls = %+v, want one for train-7 as %s", calls, aliceID.User)
	}
}

// TestTriageFull: detail full posts the whole answer in the thread.
func TestTriageFull(t *testing.T) {
	th := startTriage(t, triage.Full)
	ts := th.message(t, alice.ID, supportChannel, "", "pourquoi train-7 est en attente ?", nil)
	thread, _ := th.answer(t, ts, false)
	tt := textOf(t, thread.Blocks)
	for _, want := range []string{"It needs 8 GPUs", "Ask for 4 GPUs", "action=" + blocks.ActionEscalate, "action=" + blocks.ActionRefresh} {
		if !strings.Contains(tt, want) {
			t.Errorf("full thread answer lacks %q:\n%s", want, tt)
		}
	}
	if strings.Contains(tt, "action="+blocks.ActionShare) {
		t.Error("a thread answer is already shared: no Share button")
	}
	slackfake.Quiet(t, th.fs.Posts, 100*time.Millisecond, "write after the check mark")
}

// TestTriageNoJobNamed: a stuck-job message that names no job gets the
// poster's jobs that are not running, with the picker, privately in
// summary mode.
func TestTriageNoJobNamed(t *testing.T) {
	th := startTriage(t, triage.Summary)
	ts := th.message(t, alice.ID, supportChannel, "", "我的作业一直在等待", nil)
	thread, eph := th.answer(t, ts, true)
	// Asked in Chinese: the thread note is in Chinese.
	if tt := textOf(t, thread.Blocks); !strings.Contains(tt, "私下") || strings.Contains(tt, "train-8") {
		t.Errorf("thread note: %s", tt)
	}
	et := textOf(t, eph.Blocks)
	if !strings.Contains(et, "train-8") || !strings.Contains(et, "action="+blocks.ActionPick) {
		t.Errorf("private job list lacks the jobs or the picker:\n%s", et)
	}
	if calls := th.jobs.Calls(); len(calls) != 1 || calls[0].User != aliceID.User {
		t.Errorf("job list calls = %+v, want one as %s", calls, aliceID.User)
	}
}

// TestTriageUnmapped: a poster the resolver does not know is told how to
// get access; the cluster is never read and no check mark is given.
func TestTriageUnmapped(t *testing.T) {
	th := startTriage(t, triage.Summary)
	ts := th.message(t, carol.ID, supportChannel, "", "train-7 is stuck", nil)
	expect(t, th.post(t), "reactions.add", "eyes")
	p := th.post(t)
	if p.Method != "chat.postMessage" || p.ThreadTS != ts || !strings.Contains(textOf(t, p.Blocks), "Ask your platform team for access") {
		t.Fatalf("refusal: %+v %s", p, textOf(t, p.Blocks))
	}
	expect(t, th.post(t), "reactions.remove", "eyes")
	slackfake.Quiet(t, th.fs.Posts, 150*time.Millisecond, "check mark for a refusal")
	if n := len(th.diag.Calls()); n != 0 {
		t.Errorf("diagnosed %d times for an unmapped poster", n)
	}
}

// TestTriageIgnores: bots, the bot itself, edits and other subtypes,
// thread replies, mentions (app_mention answers those), other channels
// and messages that are no job question get nothing.
func TestTriageIgnores(t *testing.T) {
	th := startTriage(t, triage.Summary)
	th.message(t, "U0BOTUSER", supportChannel, "", "train-7 is stuck", map[string]any{"bot_id": "B99"})
	th.message(t, slackfake.BotUserID, supportChannel, "", "train-7 is stuck", nil)
	th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", map[string]any{"subtype": "message_changed"})
	th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", map[string]any{"subtype": "channel_join"})
	th.message(t, alice.ID, supportChannel, "1700000000.000001", "train-7 is stuck", nil)
	th.message(t, alice.ID, supportChannel, "", "<@"+slackfake.BotUserID+"> train-7 is stuck", nil)
	th.message(t, alice.ID, "C0GENERAL", "", "train-7 is stuck", nil)
	th.message(t, alice.ID, supportChannel, "", "the queue for lunch is long", nil)
	slackfake.Quiet(t, th.fs.Posts, 300*time.Millisecond, "answer to an ignored message")
	if n := len(th.diag.Calls()); n != 0 {
		t.Errorf("diagnosed %d ignored messages", n)
	}
}

// TestTriageRepeat: the same job asked about again within the window with
// the same verdict gets a link to the earlier answer; a changed verdict
// or an expired window gets a fresh answer.
func TestTriageRepeat(t *testing.T) {
	th := startTriage(t, triage.Full)
	first := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", nil)
	a1, _ := th.answer(t, first, false)
	// The fake's ts of the first answer is what chat.postMessage returned;
	// read it back through the permalink in the link.
	th.advance(5 * time.Minute)
	second := th.message(t, alice.ID, supportChannel, "", "train-7 still pending?", nil)
	link, _ := th.answer(t, second, false)
	lt := textOf(t, link.Blocks)
	if !strings.Contains(lt, "has not changed") || !strings.Contains(lt, "https://acme.slack.com/archives/"+supportChannel+"/p") || strings.Contains(lt, "It needs 8 GPUs") {
		t.Errorf("repeat answer is not a link to the earlier one:\n%s", lt)
	}
	if !strings.Contains(lt, "action="+blocks.ActionEscalate) {
		t.Errorf("repeat answer lacks the Escalate button:\n%s", lt)
	}
	if a1.Blocks == link.Blocks {
		t.Error("the repeat is the same message")
	}
	if n := len(th.diag.Calls()); n != 2 {
		t.Errorf("diagnosed %d times, want every question read again as its poster", n)
	}

	// The verdict changed: a fresh full answer.
	changed := detailedReport()
	changed.Verdict.Code, changed.Verdict.Cause, changed.Verdict.Headline = diagnose.CodeOnHold, "", "train-7 is held: its LocalQueue is stopped"
	th.diag.mu.Lock()
	th.diag.reports["train-7"] = changed
	th.diag.mu.Unlock()
	third := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck again", nil)
	fresh, _ := th.answer(t, third, false)
	if ft := textOf(t, fresh.Blocks); strings.Contains(ft, "has not changed") || !strings.Contains(ft, "its LocalQueue is stopped") {
		t.Errorf("a changed verdict must get a fresh answer:\n%s", ft)
	}

	// Past the window: fresh again.
	th.advance(11 * time.Minute)
	fourth := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", nil)
	late, _ := th.answer(t, fourth, false)
	if strings.Contains(textOf(t, late.Blocks), "has not changed") {
		t.Error("past the window the answer must be fresh")
	}
}

// TestTriageEscalate: Escalate posts a compact summary in the thread for
// the on-call group (verdict, cause, evidence, remedies, link), read again
// as the poster; a presser who may not read it gets a private refusal and
// nothing is posted.
func TestTriageEscalate(t *testing.T) {
	th := startTriage(t, triage.Summary)
	root := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", nil)
	th.answer(t, root, true)
	before := len(th.diag.Calls())

	press := func(user, env string) {
		b := slackfake.BlockAction{User: user, Channel: supportChannel, MessageTS: "1700000200.000100", ThreadTS: root, ParentUser: alice.ID,
			ActionID: blocks.ActionEscalate, Value: trainRef, ResponseURL: th.fs.ResponseURL(env), TriggerID: "trig-" + env}
		th.send(t, slackfake.InteractiveEnvelope(env, b.Payload()))
	}
	press(alice.ID, "esc1")
	p := th.post(t)
	if p.Method != "chat.postMessage" || p.Channel != supportChannel || p.ThreadTS != root {
		t.Fatalf("escalation: %+v, want a post in thread %s", p, root)
	}
	et := textOf(t, p.Blocks)
	for _, want := range []string{"<!subteam^" + onCallGroup + ">", "<@" + alice.ID + ">", "WaitingForQuota", "QuotaInUse",
		"insufficient quota for nvidia.com/gpu", "Ask for 4 GPUs", "cq-gpu", slackfake.Permalink(supportChannel, root)} {
		if !strings.Contains(et, want) {
			t.Errorf("escalation lacks %q:\n%s", want, et)
		}
	}
	calls := th.diag.Calls()
	if len(calls) != before+1 || calls[len(calls)-1].ID.User != aliceID.User {
		t.Errorf("escalation must re-read the job as the poster: %+v", calls)
	}

	press(carol.ID, "esc2")
	p = th.post(t)
	if p.Method != slackfake.MethodResponseURL || p.ResponseURL != "esc2" || !strings.Contains(textOf(t, p.Blocks), "Ask your platform team for access") {
		t.Fatalf("unmapped presser: %+v %s", p, textOf(t, p.Blocks))
	}
	slackfake.Quiet(t, th.fs.Posts, 150*time.Millisecond, "escalation by an unmapped presser")
}

// TestTriageLanguages: a triage question asked in Japanese is answered in
// Japanese in its thread (summary and buttons) and privately (the full
// answer); the escalation summary posted for the channel is in the
// channel's language (triage.language), French here, whatever language
// the poster asked in.
func TestTriageLanguages(t *testing.T) {
	th := startTriage(t, triage.Summary)
	th.triage.Lang = i18n.French
	th.diag.reports["train-7"] = translatedWaiting()
	root := th.message(t, alice.ID, supportChannel, "", "train-7 がずっと待っています", nil)
	thread, eph := th.answer(t, root, true)
	tt, et := textOf(t, thread.Blocks), textOf(t, eph.Blocks)
	for _, want := range []string{"個別に送りました", "自分にも説明して", "プラットフォームチームにエスカレーション"} {
		if !strings.Contains(tt, want) {
			t.Errorf("Japanese thread answer lacks %q:\n%s", want, tt)
		}
	}
	i18ntest.AssertTranslated(t, i18n.Japanese, tt, "action=", "value=", trainRef)
	if !strings.Contains(et, "対処方法") {
		t.Errorf("the private full answer is not in Japanese:\n%s", et)
	}

	b := slackfake.BlockAction{User: alice.ID, Channel: supportChannel, MessageTS: "1700000200.000100", ThreadTS: root, ParentUser: alice.ID,
		ActionID: blocks.ActionEscalate, Value: trainRef, ResponseURL: th.fs.ResponseURL("esc"), TriggerID: "trig-esc"}
	th.send(t, slackfake.InteractiveEnvelope("esc", b.Payload()))
	p := th.post(t)
	if p.Method != "chat.postMessage" || p.ThreadTS != root {
		t.Fatalf("escalation: %+v", p)
	}
	esc := textOf(t, p.Blocks)
	for _, want := range []string{"transmis par <@" + alice.ID + ">", "Déjà proposé à l’utilisateur", "Fil :"} {
		if !strings.Contains(esc, want) {
			t.Errorf("French escalation lacks %q:\n%s", want, esc)
		}
	}
}

// translatedWaiting is detailedReport with its verdict and remedies as
// catalog messages, as package diagnose returns them.
func translatedWaiting() diagnose.Report {
	r := detailedReport()
	cq := i18n.Obj("ClusterQueue", "", "cq-gpu")
	r.Verdict.HeadlineMsg = i18n.M("diagnose.cqStopped", cq, i18n.Ref("job", "team-a", "train-7"))
	r.Verdict.Headline = r.Verdict.HeadlineMsg.String()
	r.Verdict.DetailMsg = i18n.M("diagnose.cqStopped.detail", cq, i18n.Name("Hold"))
	r.Verdict.Detail = r.Verdict.DetailMsg.String()
	r.Findings = nil
	for i := range r.Remedies {
		r.Remedies[i].SummaryMsg = i18n.M("diagnose.cqStopped.remedy", cq)
		r.Remedies[i].Summary = r.Remedies[i].SummaryMsg.String()
	}
	return r
}
