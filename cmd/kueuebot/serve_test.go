package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// lockedBuffer is a bytes.Buffer safe for the serve goroutine's writes and
// the test's reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is `kueuebot serve` running against a fake Slack.
type served struct {
	fs     *slackfake.Server
	conn   *websocket.Conn
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan int
}

// serveConfig maps U0000ALICE to alice (namespace team-a); U0000CAROL is
// a member of the workspace but not mapped.
func serveConfig(fs *slackfake.Server, extra string) string {
	return `slack:
  apiURL: "` + fs.APIURL() + `"
ops:
  listenAddr: "127.0.0.1:0"
identity:
  refusalContact: "#platform-help"
  users:
    - {slackUserID: U0000ALICE, teamID: ` + slackfake.TeamID + `, user: alice, namespaces: [team-a]}
` + extra
}

// startServe runs serve in Socket Mode with the dump backend.
func startServe(t *testing.T, cfg string) *served {
	t.Helper()
	fs := slackfake.New(t)
	fs.SetUser(slack.User{ID: "U0000ALICE", Name: "alice"})
	fs.SetUser(slack.User{ID: "U0000CAROL", Name: "carol"})
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(serveConfig(fs, cfg)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "xoxb-test")
	t.Setenv("KUEUEBOT_SLACK_APPTOKEN", "xapp-test")
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{fs: fs, stderr: &lockedBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- run(ctx, []string{"serve", "--config", cfgPath, "--from-file", "../../deploy/examples/sample-job.yaml"}, strings.NewReader(""), io.Discard, s.stderr)
	}()
	t.Cleanup(cancel)
	select {
	case code := <-s.done:
		t.Fatalf("serve exited %d before connecting: %s", code, s.stderr.String())
	case s.conn = <-fs.Conns:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not open a Socket Mode connection")
	}
	return s
}

// stop sends what SIGTERM does (the command's context ends) and returns
// the exit code.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	return slackfake.Receive(t, s.done, "serve to stop")
}

var reOps = regexp.MustCompile(`"ops":"([^"]+)"`)

// opsURL is the ops listener's base URL, from the start log line.
func (s *served) opsURL(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if m := reOps.FindStringSubmatch(s.stderr.String()); m != nil {
			return "http://" + m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no ops address in the logs:\n%s", s.stderr.String())
	return ""
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test on loopback
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func mentionEnv(env, user string) map[string]any {
	return slackfake.EventsEnvelope(env, "Ev"+env, 0, slackfake.Mention(user, "C1", "1.0", "", "<@UBOT> why is sample-job waiting?"))
}

// TestServe runs `kueuebot serve` against a fake Slack on 127.0.0.1: a
// mapped user's mention is answered privately (ephemeral, the privacy
// default) with the diagnosis, an unmapped user's with the refusal; the
// ops listener is ready while connected and counts the questions; the
// command stops cleanly.
func TestServe(t *testing.T) {
	s := startServe(t, "")
	for _, env := range []map[string]any{mentionEnv("e1", "U0000ALICE"), mentionEnv("e2", "U0000CAROL")} {
		if _, err := s.fs.Send(s.conn, env); err != nil {
			t.Fatal(err)
		}
	}
	answers := map[string]slackfake.Post{}
	for range 2 {
		p := slackfake.Receive(t, s.fs.Posts, "an answer")
		answers[p.User] = p
	}
	alice, carol := answers["U0000ALICE"], answers["U0000CAROL"]
	if alice.Method != "chat.postEphemeral" || alice.Channel != "C1" || !strings.Contains(alice.Blocks, "ExceedsMaxQuota") {
		t.Errorf("alice's answer is not a private diagnosis: %+v", alice)
	}
	if carol.Method != "chat.postEphemeral" || !strings.Contains(carol.Blocks, "#platform-help") || strings.Contains(carol.Blocks, "ExceedsMaxQuota") {
		t.Errorf("carol got no private refusal: %+v", carol)
	}

	ops := s.opsURL(t)
	if code, body := get(t, ops+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz = %d %q while connected", code, body)
	}
	if code, _ := get(t, ops+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	// The counts are recorded just after the answers are delivered.
	wants := []string{
		`kueuebot_questions_total{entry="mention",verdict="ExceedsMaxQuota"} 1`,
		`kueuebot_questions_total{entry="mention",verdict="refused"} 1`,
		`kueuebot_slack_api_calls_total{method="chat.postEphemeral"} 2`,
		`kueuebot_answer_duration_seconds_count{entry="mention"} 2`,
		`go_goroutines`,
	}
	var metrics string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, metrics = get(t, ops+"/metrics")
		missing := 0
		for _, w := range wants {
			if !strings.Contains(metrics, w) {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	if code := s.stop(t); code != exitOK {
		t.Errorf("serve exited %d: %s", code, s.stderr.String())
	}
	logs := s.stderr.String()
	if strings.Contains(logs, "xoxb-test") || strings.Contains(logs, "xapp-test") {
		t.Error("a token reached the logs")
	}
	if !strings.Contains(logs, `"msg":"kueuebot.question"`) || !strings.Contains(logs, `"entry":"mention"`) {
		t.Errorf("no audit line with its entry point in the logs:\n%s", logs)
	}
}

// TestServeSIGTERMDeliversInFlight: SIGTERM right after ten questions were
// acked: serve stops taking events, answers all ten, and exits 0.
func TestServeSIGTERMDeliversInFlight(t *testing.T) {
	s := startServe(t, "")
	const n = 10
	for i := range n {
		if _, err := s.fs.Send(s.conn, mentionEnv(fmt.Sprint("e", i), "U0000ALICE")); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		slackfake.Receive(t, s.fs.Acks, "an ack")
	}
	if code := s.stop(t); code != exitOK {
		t.Errorf("serve exited %d: %s", code, s.stderr.String())
	}
	for range n {
		if p := slackfake.Receive(t, s.fs.Posts, "an answer"); !strings.Contains(p.Blocks, "ExceedsMaxQuota") {
			t.Errorf("answer %+v", p)
		}
	}
}

func TestServeNeedsTokens(t *testing.T) {
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "")
	t.Setenv("KUEUEBOT_SLACK_APPTOKEN", "")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"serve"}, strings.NewReader(""), &stdout, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), "KUEUEBOT_SLACK_BOTTOKEN") {
		t.Errorf("serve without tokens: exit %d, stderr %q; want a failure naming the variable", code, stderr.String())
	}
}

var reListen = regexp.MustCompile(`"listen":"([^"]+)"`)

// TestServeHTTPMode runs serve with slack.mode http: a signed mention is
// acked and answered privately; an unsigned one is refused with 401.
func TestServeHTTPMode(t *testing.T) {
	fs := slackfake.New(t)
	fs.SetUser(slack.User{ID: "U0000ALICE", Name: "alice"})
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	cfg := serveConfig(fs, "") + "\n"
	cfg = strings.Replace(cfg, "slack:\n", "slack:\n  mode: http\n  listenAddr: \"127.0.0.1:0\"\n", 1)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "test-signing-secret"
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "xoxb-test")
	t.Setenv("KUEUEBOT_SLACK_APPTOKEN", "")
	t.Setenv("KUEUEBOT_SLACK_SIGNINGSECRET", secret)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgPath, "--from-file", "../../deploy/examples/sample-job.yaml"}, strings.NewReader(""), io.Discard, stderr)
	}()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if m := reListen.FindStringSubmatch(stderr.String()); m != nil {
			base = "http://" + m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen: %s", stderr.String())
		}
	}
	send := func(sign bool) int {
		body, err := json.Marshal(slackfake.EventCallback("EvS1", slackfake.Mention("U0000ALICE", "C1", "1.0", "", "<@UBOT> why is sample-job waiting?")))
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/slack/events", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if sign {
			slackfake.Sign(req, secret, body, time.Now())
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send(false); code != http.StatusUnauthorized {
		t.Errorf("unsigned: %d, want 401", code)
	}
	if code := send(true); code != http.StatusOK {
		t.Errorf("signed: %d, want 200", code)
	}
	if p := slackfake.Receive(t, fs.Posts, "the answer"); p.Method != "chat.postEphemeral" || !strings.Contains(p.Blocks, "ExceedsMaxQuota") {
		t.Errorf("answer %+v", p)
	}
	cancel()
	if code := slackfake.Receive(t, done, "serve to stop"); code != exitOK {
		t.Errorf("serve exited %d: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), secret) {
		t.Error("the signing secret reached the logs")
	}
}
