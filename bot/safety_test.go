package bot

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/ops"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// The tests below drive the bot through its real transports against the
// fake Slack, one per way a workspace could be hurt (issue 17).

// TestPublicAnswerNotRewrittenByOthers: with slack.replies thread, the
// answer is public; another member pressing Refresh or Details on it gets
// their own view privately, and the public message is never updated.
func TestPublicAnswerNotRewrittenByOthers(t *testing.T) {
	diag := &fakeDiagnoser{
		reports: map[string]diagnose.Report{"train-7": detailedReport()},
		views: map[string]diagnose.Report{bobID.User + "/train-7": {
			Verdict: diagnose.Verdict{Stage: diagnose.StageResolve, Code: diagnose.CodeNotFound, Headline: "I cannot find train-7, or you may not see it"},
			Target:  diagnose.TargetInfo{Kind: "JobSet", Namespace: "team-a", Name: "train-7"},
		}},
	}
	h := startSocket(t, harnessOptions{mode: RepliesThread, diag: diag})
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	answer := h.post(t)
	if answer.Method != "chat.postMessage" || answer.ThreadTS != "1.0" {
		t.Fatalf("answer %+v, want public in thread 1.0", answer)
	}
	for i, tc := range []struct{ user, action string }{
		{bob.ID, blocks.ActionRefresh}, {bob.ID, blocks.ActionDetails}, {carol.ID, blocks.ActionRefresh},
	} {
		env := fmt.Sprintf("press%d", i)
		b := slackfake.BlockAction{User: tc.user, Channel: "C1", MessageTS: "1.5", ThreadTS: "1.0", ParentUser: alice.ID,
			ActionID: tc.action, Value: trainRef, ResponseURL: h.fs.ResponseURL(env), TriggerID: "trig-" + env}
		h.send(t, slackfake.InteractiveEnvelope(env, b.Payload()))
		p := h.post(t)
		if p.Method != slackfake.MethodResponseURL || p.ResponseURL != env || p.ReplaceOriginal || p.ResponseType == "in_channel" {
			t.Errorf("%s pressing %s on a public answer: %+v, want a private answer through response_url", tc.user, tc.action, p)
		}
	}
	slackfake.Quiet(t, h.fs.Posts, 150*time.Millisecond, "write after the presses")
}

// escalate presses Escalate as user on the answer in alice's triage thread
// root, and returns the next write.
func (th *triageHarness) escalate(t *testing.T, user, root string) slackfake.Post {
	t.Helper()
	b := slackfake.BlockAction{User: user, Channel: supportChannel, MessageTS: "1700000200.000100", ThreadTS: root, ParentUser: alice.ID,
		ActionID: blocks.ActionEscalate, Value: trainRef, ResponseURL: th.fs.ResponseURL("esc"), TriggerID: "trig-esc"}
	th.send(t, slackfake.InteractiveEnvelope("esc", b.Payload()))
	return th.post(t)
}

// TestEscalateNeedsPosterOrReader: a member who cannot read the job
// pressing Escalate in a triage thread is told privately why not; nothing
// is posted and on-call is not paged.
func TestEscalateNeedsPosterOrReader(t *testing.T) {
	th := startTriage(t, triage.Summary)
	th.diag.setViews(map[string]diagnose.Report{bobID.User + "/train-7": {
		Verdict: diagnose.Verdict{Stage: diagnose.StageResolve, Code: diagnose.CodeNotFound, Headline: "I cannot find train-7, or you may not see it"},
		Target:  diagnose.TargetInfo{Kind: "JobSet", Namespace: "team-a", Name: "train-7"},
	}})
	root := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", nil)
	th.answer(t, root, true)
	p := th.escalate(t, bob.ID, root)
	if p.Method != slackfake.MethodResponseURL || p.ResponseURL != "esc" || p.ResponseType == "in_channel" {
		t.Fatalf("escalation by someone who cannot see the job: %+v %s, want a private refusal", p, textOf(t, p.Blocks))
	}
	if txt := textOf(t, p.Blocks); strings.Contains(txt, onCallGroup) || !strings.Contains(txt, "escalate") {
		t.Errorf("refusal should say why escalating is not possible, without paging:\n%s", txt)
	}
	slackfake.Quiet(t, th.fs.Posts, 150*time.Millisecond, "post after a refused escalation")
}

// TestEscalateReadsAsPoster: a colleague with wider access escalating the
// poster's thread posts what the poster may see (what the thread already
// shows), never the colleague's wider view.
func TestEscalateReadsAsPoster(t *testing.T) {
	th := startTriage(t, triage.Summary)
	wide := detailedReport()
	wide.Verdict.Detail = "Only bob sees this: cq-secret borrows from the research cohort."
	th.diag.setViews(map[string]diagnose.Report{bobID.User + "/train-7": wide})
	root := th.message(t, alice.ID, supportChannel, "", "train-7 is stuck", nil)
	th.answer(t, root, true)
	p := th.escalate(t, bob.ID, root)
	if p.Method != "chat.postMessage" || p.ThreadTS != root {
		t.Fatalf("escalation: %+v, want a post in thread %s", p, root)
	}
	txt := textOf(t, p.Blocks)
	if strings.Contains(txt, "cq-secret") {
		t.Errorf("the public escalation carries the presser's wider view:\n%s", txt)
	}
	for _, want := range []string{"<!subteam^" + onCallGroup + ">", "<@" + bob.ID + ">", "WaitingForQuota"} {
		if !strings.Contains(txt, want) {
			t.Errorf("escalation lacks %q:\n%s", want, txt)
		}
	}
	calls := th.diag.Calls()
	if last := calls[len(calls)-1].ID.User; last != aliceID.User {
		t.Errorf("the escalation was read as %s, want the poster %s", last, aliceID.User)
	}
}

// TestHTTPReplayAfterRestart: a captured signed request resent to a new
// process (after a restart, or a replica taking over) within Slack's
// five-minute window is refused and not answered again.
func TestHTTPReplayAfterRestart(t *testing.T) {
	const js, form = "application/json", "application/x-www-form-urlencoded"
	mention := jsonBody(t, slackfake.EventCallback("EvR1", slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> why is train-7 waiting?")))
	first := startHTTP(t)
	captured := time.Now()
	slash := formBody(slackfake.SlashCommand(alice.ID, "C1", "why train-7", first.fs.ResponseURL("r1"), "trig-r1"))
	if code, _ := first.do(t, transport.PathEvents, js, mention, captured, false, false); code != 200 {
		t.Fatalf("mention: %d", code)
	}
	slackfake.Receive(t, first.fs.Posts, "the first answer")
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}

	// The restart takes a moment; Slack's timestamps count seconds.
	time.Sleep(time.Until(captured.Truncate(time.Second).Add(1100 * time.Millisecond)))
	second := startHTTP(t)
	for _, r := range []struct {
		path, ct string
		body     []byte
	}{{transport.PathEvents, js, mention}, {transport.PathCommands, form, slash}} {
		if code, _ := second.do(t, r.path, r.ct, r.body, captured, false, false); code == 200 {
			t.Errorf("a replayed %s signed before this process started was accepted", r.path)
		}
	}
	slackfake.Quiet(t, second.fs.Posts, 200*time.Millisecond, "answer to a replayed request")
	// A fresh request is answered as usual.
	fresh := jsonBody(t, slackfake.EventCallback("EvR2", slackfake.Mention(alice.ID, "C1", "2.0", "", "<@UBOT> why is train-7 waiting?")))
	if code, _ := second.do(t, transport.PathEvents, js, fresh, time.Now(), false, false); code != 200 {
		t.Errorf("fresh mention: %d", code)
	}
	slackfake.Receive(t, second.fs.Posts, "the fresh answer")
}

// TestBusyNoticeNeverAfterAnswer: with Slack taking 200 ms per call and
// questions queued, a "busy" notice is either sent before the answer it
// announces or not at all.
func TestBusyNoticeNeverAfterAnswer(t *testing.T) {
	h := startSocket(t, harnessOptions{disp: dispatch.Options{Workers: 2, PerUser: 100, BusyAfter: 10 * time.Millisecond}})
	h.fs.SetDelay(200 * time.Millisecond)
	const n = 24
	for i := range n {
		ch := fmt.Sprintf("C%02d", i)
		h.send(t, slackfake.EventsEnvelope(fmt.Sprintf("q%d", i), fmt.Sprintf("EvQ%d", i), 0, slackfake.Mention(alice.ID, ch, "1.0", "", "<@UBOT> train-7")))
	}
	answered := map[string]bool{}
	late := 0
	for len(answered) < n {
		p := slackfake.Receive(t, h.fs.Posts, "a write")
		switch txt := textOf(t, p.Blocks); {
		case strings.Contains(txt, "I will answer in a moment"):
			if answered[p.Channel] {
				late++
			}
		case strings.Contains(txt, answerHeadline):
			answered[p.Channel] = true
		default:
			t.Fatalf("unexpected write %+v", p)
		}
	}
	if late > 0 {
		t.Errorf("%d busy notices arrived after the answer they announced", late)
	}
	slackfake.Quiet(t, h.fs.Posts, 300*time.Millisecond, "notice after every answer")
}

// TestLongRetryAfterFallsBackToDM: a 429 on chat.postEphemeral asking to
// wait longer than the delivery may take does not lose the answer: it goes
// to the asker's DM at once.
func TestLongRetryAfterFallsBackToDM(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.fs.RateLimit("chat.postEphemeral", 1, 30)
	h.send(t, slackfake.EventsEnvelope("m1", "EvM1", 0, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> train-7")))
	p := h.post(t)
	if p.Method != "chat.postMessage" || p.Channel != alice.ID || !strings.Contains(textOf(t, p.Blocks), answerHeadline) {
		t.Errorf("got %+v, want the answer in alice's DM", p)
	}
}

// TestOneUserCannotLockOthersOut: one user floods the bot; the questions
// of ten others sent afterwards are all answered, none "too busy".
func TestOneUserCannotLockOthersOut(t *testing.T) {
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}, delay: 20 * time.Millisecond}
	// Room for the flooder's DefaultPerUser questions and all 20 of the
	// others' at once (2 + 34 = 16 + 20): then the others are refused only
	// if the flooder holds more than its share, whatever the timing. With
	// less room the test depended on how fast the flood drained (on a busy
	// machine 4 of the others' 20 could meet a full queue).
	h := startSocket(t, harnessOptions{diag: diag, disp: dispatch.Options{Workers: 2, QueueSize: 34, BusyAfter: time.Minute}})
	const flood, others = 60, 10
	for i := range flood {
		h.send(t, slackfake.EventsEnvelope(fmt.Sprintf("f%d", i), fmt.Sprintf("EvF%d", i), 0, slackfake.Mention(alice.ID, "C1", fmt.Sprintf("%d.0", i), "", "<@UBOT> train-7")))
	}
	for i := range others {
		u := fmt.Sprintf("U0OTHER%02d", i)
		for k := range 2 {
			env := fmt.Sprintf("o%d-%d", i, k)
			h.send(t, slackfake.EventsEnvelope(env, "Ev"+env, 0, slackfake.Mention(u, "C1", fmt.Sprintf("9%d%d.0", i, k), "", "<@UBOT> train-7")))
		}
	}
	finals, refusedOthers := 0, 0
	for finals < flood+2*others {
		p := slackfake.Receive(t, h.fs.Posts, "a write")
		finals++
		if p.User != alice.ID && strings.Contains(textOf(t, p.Blocks), "too busy") {
			refusedOthers++
		}
	}
	if refusedOthers > 0 {
		t.Errorf("%d of %d questions of other users were refused while one user flooded the bot", refusedOthers, 2*others)
	}
}

// TestShortcutWithoutJobName: the message shortcut on a message that
// names no job says so, instead of looking up a plain word.
func TestShortcutWithoutJobName(t *testing.T) {
	h := startSocket(t, harnessOptions{})
	h.send(t, slackfake.InteractiveEnvelope("sc1", slackfake.MessageShortcut(alice.ID, "C1", transport.ShortcutWhy, "5.0", "lunch at noon?", h.fs.ResponseURL("sc1"), "trig-sc1")))
	p := h.post(t)
	if txt := textOf(t, p.Blocks); !strings.Contains(txt, "could not find a job name") {
		t.Errorf("shortcut on chatter answered:\n%s", txt)
	}
	if n := len(h.diag.Calls()); n != 0 {
		t.Errorf("looked up %d jobs for a message naming none", n)
	}
}

// TestHTTPStandbyRefuses: a standby replica in HTTP mode listens but is not
// ready and refuses Slack's requests with 503 (Slack retries, the Service
// sends them to the ready leader); once it leads it answers, and it still
// refuses requests signed before it began to.
func TestHTTPStandbyRefuses(t *testing.T) {
	fs := slackfake.New(t)
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", APIURL: fs.APIURL()})
	diag := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": detailedReport()}}
	disp := dispatch.New(&Bot{Asker: &Asker{Resolve: testResolver(), Explain: diag}, Replier: &delivery.SlackReplier{API: api}}, dispatch.Options{})
	t.Cleanup(func() { _ = disp.Shutdown(context.Background()) })
	ready := &ops.Readiness{}
	hm := &transport.HTTPMode{Addr: "127.0.0.1:0", SigningSecret: signingSecret, Dispatcher: disp, API: api, Ready: ready, Standby: true}
	if err := hm.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- hm.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("HTTP mode: %v", err)
		}
	})
	h := &httpHarness{fs: fs, base: "http://" + hm.ListenAddr(), diag: diag}
	const js = "application/json"
	signedEarlier := time.Now()
	body := func(id string) []byte {
		return jsonBody(t, slackfake.EventCallback(id, slackfake.Mention(alice.ID, "C1", "1.0", "", "<@UBOT> why is train-7 waiting?")))
	}
	var code int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if code, _ = h.do(t, transport.PathEvents, js, body("EvS1"), time.Now(), false, false); code == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
	}
	if code != http.StatusServiceUnavailable {
		t.Fatalf("standby answered %d, want 503", code)
	}
	if ok, reason := ready.Ready(); ok || !strings.Contains(reason, "standby") {
		t.Errorf("standby readiness %v %q, want not ready (standby)", ok, reason)
	}
	slackfake.Quiet(t, fs.Posts, 100*time.Millisecond, "answer from a standby")

	time.Sleep(time.Until(signedEarlier.Truncate(time.Second).Add(1100 * time.Millisecond)))
	hm.SetActive(true)
	if ok, _ := ready.Ready(); !ok {
		t.Error("the leader is not ready")
	}
	if code, _ := h.do(t, transport.PathEvents, js, body("EvS2"), signedEarlier, false, false); code != http.StatusUnauthorized {
		t.Errorf("a request signed before this replica led: %d, want 401", code)
	}
	if code, _ := h.do(t, transport.PathEvents, js, body("EvS3"), time.Now(), false, false); code != http.StatusOK {
		t.Fatalf("leader: %d", code)
	}
	slackfake.Receive(t, fs.Posts, "the leader's answer")
	hm.SetActive(false)
	if code, _ := h.do(t, transport.PathEvents, js, body("EvS4"), time.Now(), false, false); code != http.StatusServiceUnavailable {
		t.Errorf("after losing the lead: %d, want 503", code)
	}
}
