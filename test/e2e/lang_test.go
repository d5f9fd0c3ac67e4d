package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/prefs"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// langNamespace is where this test's bot keeps its state, as the bot's
// own namespace.
const langNamespace = "kueuebot-lang-e2e"

// botInNamespace creates ns with the bot's Role (rbac.BotRole: get/update
// on the language ConfigMap) bound to the bot's user kueuebot, and returns
// a client with the bot's own credentials.
func botInNamespace(t *testing.T, sb, ns string) kubernetes.Interface {
	t.Helper()
	admin := adminClient(t, sb)
	ctx := t.Context()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}) })
	cfg, err := config.Parse([]byte(botConfig))
	if err != nil {
		t.Fatal(err)
	}
	role := rbac.BotRole(cfg, ns)
	binding := rbac.BotStateRoleBinding(ns)
	binding.Subjects = []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "kueuebot"}}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// A previous run's choices (the namespace may still be terminating).
	if err := admin.CoreV1().ConfigMaps(ns).Delete(ctx, rbac.LangConfigMapName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	waitAllowed(t, sb, "kueuebot", authorizationv1.ResourceAttributes{Verb: "update", Resource: "configmaps", Namespace: ns, Name: rbac.LangConfigMapName})
	base, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig-kueuebot"))
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(base)
}

// textOfPost is a post's blocks as the terminal shows them.
func textOfPost(t *testing.T, p slackfake.Post) string {
	t.Helper()
	var bl slack.Blocks
	if err := json.Unmarshal([]byte(p.Blocks), &bl); err != nil {
		t.Fatalf("blocks of %s: %v", p.Method, err)
	}
	return blocks.Text(bl.BlockSet)
}

// TestSlackAnswersInTheAskersLanguage asks through the whole Slack
// pipeline, against the sandbox, in each of the four languages: each
// answer's headings and buttons are in the question's language; a bare
// name is answered in the user's Slack locale (users.info with
// include_locale); "réponds en anglais" is remembered in the ConfigMap
// kueuebot-lang, written with the bot's own Role only, and survives a
// restart of the bot.
func TestSlackAnswersInTheAskersLanguage(t *testing.T) {
	sb := sandbox(t)
	own := botInNamespace(t, sb, langNamespace)
	start := func() *slackBot {
		return startSlackBotWith(t, sb, func(a *bot.Asker, fs *slackfake.Server, api *slack.Client) {
			fs.SetUser(slack.User{ID: "U0000ALICE", Locale: "ja-JP"})
			a.Lang = &bot.Languages{Prefs: &prefs.Store{Client: own, Namespace: langNamespace}, Locales: &bot.SlackLocales{API: api}}
		})
	}
	s := start()
	mention := func(s *slackBot, text string) string {
		t.Helper()
		_, p := s.ask(t, slackfake.EventsEnvelope(s.id("m"), s.id("Ev"), 0, slackfake.Mention("U0000ALICE", "C1", "1.0", "", "<@UBOT> "+text)))
		return textOfPost(t, p)
	}
	// What every answer about sample-job has, in each language: the
	// headings and the Refresh button (bot/blocks' catalog).
	marks := func(l i18n.Lang) []string {
		return []string{
			"*" + i18n.Render(l, i18n.M("blocks.context.verdict")) + "*",
			"*" + i18n.Render(l, i18n.M("blocks.section.remedies")) + "*",
			"[" + i18n.Render(l, i18n.M("blocks.button.refresh")) + "]",
		}
	}
	questions := []struct {
		lang i18n.Lang
		text string
	}{
		{i18n.English, "why is sample-job -n sc-sample-job waiting?"},
		{i18n.French, "pourquoi sample-job -n sc-sample-job est en attente ?"},
		{i18n.Japanese, "sample-job -n sc-sample-job はなぜ待っているの？"},
		{i18n.Chinese, "为什么 sample-job -n sc-sample-job 在等待？"},
	}
	for _, q := range questions {
		got := mention(s, q.text)
		if !strings.Contains(got, "ExceedsMaxQuota") {
			t.Errorf("%s: not the diagnosis of sample-job:\n%s", q.lang, got)
		}
		for _, m := range marks(q.lang) {
			if !strings.Contains(got, m) {
				t.Errorf("%s: %q: the answer lacks %q:\n%s", q.lang, q.text, m, got)
			}
		}
	}
	// A bare name tells no language: alice's Slack locale, ja-JP.
	if got := mention(s, "sample-job -n sc-sample-job"); !strings.Contains(got, marks(i18n.Japanese)[2]) {
		t.Errorf("a bare name is not answered in the Slack locale's Japanese:\n%s", got)
	}
	// The help in French.
	if got := mention(s, "aide"); !strings.Contains(got, "Comment interroger kueuebot") {
		t.Errorf("aide: not the French help:\n%s", got)
	}
	// "réponds en anglais": remembered in the ConfigMap, confirmed in English.
	if got := mention(s, "réponds en anglais"); !strings.Contains(got, "From now on I answer you in English") {
		t.Errorf("réponds en anglais: %s", got)
	}
	cm, err := adminClient(t, sb).CoreV1().ConfigMaps(langNamespace).Get(t.Context(), rbac.LangConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the language ConfigMap: %v", err)
	}
	if cm.Data["U0000ALICE"] != "en" {
		t.Errorf("ConfigMap %s data %v, want U0000ALICE: en", cm.Name, cm.Data)
	}
	// A restarted bot (a new store, a new Slack connection) still answers
	// a French question in English.
	s2 := start()
	got := mention(s2, "pourquoi sample-job -n sc-sample-job est en attente ?")
	for _, m := range marks(i18n.English) {
		if !strings.Contains(got, m) {
			t.Errorf("after a restart, the remembered English is lost: no %q:\n%s", m, got)
		}
	}
}

// TestDigestPostedInTheChannelLanguage: a digest whose channel speaks
// Japanese (digests[].language) is read from the sandbox as its identity
// and posted, message and thread, in Japanese: no English prose once the
// codes, names and quantities are set aside.
func TestDigestPostedInTheChannelLanguage(t *testing.T) {
	sb := sandbox(t)
	if _, err := adminClient(t, sb).CoreV1().Namespaces().Get(t.Context(), "sc-quota-in-use", metav1.GetOptions{}); err != nil {
		t.Skipf("scenario namespace sc-quota-in-use: %v (make sandbox-scenarios SCENARIO=quota-in-use)", err)
	}
	const user = "digest-lang"
	digestRBAC(t, sb, user, []string{"sc-quota-in-use"})
	ns := botNamespace(t, sb)
	d := config.Digest{Name: "lang", Channel: "C00LANG001", Schedule: "0 9 * * *", Namespaces: []string{"sc-quota-in-use"}, User: user, Language: "ja"}
	clock := clocktesting.NewFakeClock(time.Date(2026, 11, 30, 8, 59, 0, 0, time.UTC))
	fs := slackfake.New(t)
	startReplica(t, sb, "pod-lang", ns, d, clock, fs)
	for deadline := time.Now().Add(60 * time.Second); !clock.HasWaiters(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the replica to lead")
		}
	}
	clock.Step(time.Minute)
	p := slackfake.Receive(t, fs.Posts, "the 09:00 digest")
	text := textOfPost(t, p)
	if p.Channel != "C00LANG001" || !strings.Contains(text, "待機キューのダイジェスト：lang") || !strings.Contains(text, "判定別の待機中ワークロード") {
		t.Fatalf("digest not in Japanese: %+v\n%s", p, text)
	}
	i18ntest.AssertTranslated(t, i18n.Japanese, text)
	for {
		select {
		case r := <-fs.Posts:
			if r.ThreadTS != "" {
				i18ntest.AssertTranslated(t, i18n.Japanese, textOfPost(t, r))
			}
			continue
		case <-time.After(2 * time.Second):
		}
		break
	}
}
