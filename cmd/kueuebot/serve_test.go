package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// TestServe runs `kueuebot serve` against a fake Slack on 127.0.0.1: a
// mapped user's mention is answered in the thread with the diagnosis, an
// unmapped user's with the refusal, and the command stops cleanly.
func TestServe(t *testing.T) {
	fs := slackfake.New(t)
	fs.Users["U0000ALICE"] = slack.User{ID: "U0000ALICE", TeamID: slackfake.TeamID, Name: "alice"}
	fs.Users["U0000CAROL"] = slack.User{ID: "U0000CAROL", TeamID: slackfake.TeamID, Name: "carol"}
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	cfg := `slack:
  apiURL: "` + fs.APIURL() + `"
identity:
  refusalContact: "#platform-help"
  users:
    - {slackUserID: U0000ALICE, teamID: ` + slackfake.TeamID + `, user: alice, namespaces: [team-a]}
`
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "xoxb-test")
	t.Setenv("KUEUEBOT_SLACK_APPTOKEN", "xapp-test")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgPath, "--from-file", "../../deploy/examples/sample-job.yaml"}, strings.NewReader(""), &stdout, &stderr)
	}()
	var conn *websocket.Conn
	select {
	case code := <-done:
		t.Fatalf("serve exited %d before connecting: %s", code, stderr.String())
	case conn = <-fs.Conns:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not open a Socket Mode connection")
	}
	mention := func(env, user string) map[string]any {
		return slackfake.EventsEnvelope(env, "Ev"+env, 0, map[string]any{
			"type": "app_mention", "user": user, "text": "<@UBOT> why is sample-job waiting?", "ts": "1.0", "channel": "C1",
		})
	}
	for _, env := range []map[string]any{mention("e1", "U0000ALICE"), mention("e2", "U0000CAROL")} {
		if err := conn.WriteJSON(env); err != nil {
			t.Fatal(err)
		}
	}
	answers := map[string]slackfake.Post{}
	for range 2 {
		p := slackfake.Receive(t, fs.Posts, "an answer")
		answers[p.Text] = p
	}
	var alice, carol *slackfake.Post
	for text, p := range answers {
		switch {
		case strings.Contains(p.Blocks, "ExceedsMaxQuota"):
			alice = &p
		case strings.Contains(p.Blocks, "#platform-help"):
			carol = &p
		default:
			t.Errorf("unexpected answer %q", text)
		}
	}
	if alice == nil || alice.ThreadTS != "1.0" || alice.Channel != "C1" {
		t.Errorf("alice's answer missing or not in the thread: %+v", alice)
	}
	if carol == nil {
		t.Error("carol got no refusal")
	}
	cancel()
	if code := slackfake.Receive(t, done, "serve to stop"); code != exitOK {
		t.Errorf("serve exited %d: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "xoxb-test") || strings.Contains(stderr.String(), "xapp-test") {
		t.Error("a token reached the logs")
	}
	if !strings.Contains(stderr.String(), `"msg":"kueuebot.question"`) {
		t.Errorf("no audit line in the logs:\n%s", stderr.String())
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
