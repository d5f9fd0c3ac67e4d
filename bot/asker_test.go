package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestAsk(t *testing.T) {
	refused := "I can't look that up for you\n============================\n\n"
	tests := []struct {
		name     string
		user     rbac.SlackUser
		text     string
		resolver *fakeResolver
		diag     *fakeDiagnoser
		timeout  time.Duration
		// want is the whole answer as text.
		want string
		// wantResolve and wantDiagnose say whether they were called.
		wantResolve  bool
		wantDiagnose []diagnoseCall
	}{
		{
			name: "help needs no identity",
			user: rbac.SlackUser{ID: "U0STRANGER"}, text: "help",
			want: blocks.Text(HelpMessage().Blocks),
		},
		{
			name: "unparsable",
			user: alice, text: "why is daemonset/web waiting?",
			want: "I cannot look at a DaemonSet. Ask about one of its Pods, e.g. `pod/NAME`: Kueue queues a DaemonSet's Pods only as plain Pods. I know these kinds: " + kinds.Words() + ".\n",
		},
		{
			name: "unknown user refused politely",
			user: rbac.SlackUser{ID: "U0STRANGER"}, text: "train-7",
			want:        refused + "You are not allowed to use kueuebot. Ask your platform team for access.\n",
			wantResolve: true,
		},
		{
			name: "resolver failure does not leak",
			user: alice, text: "train-7",
			resolver:    &fakeResolver{err: fmt.Errorf("users.info: %w", errInternal)},
			want:        refused + "I could not check your access right now. Please try again later.\n",
			wantResolve: true,
		},
		{
			name: "resolver user message is escaped",
			user: alice, text: "train-7",
			resolver:    &fakeResolver{err: fmt.Errorf("wrapped: %w", &userError{msg: "Guests <!channel> & bots may not ask.", internal: "guest"})},
			want:        refused + "Guests <!channel> & bots may not ask.\n",
			wantResolve: true,
		},
		{
			name: "no user id",
			user: rbac.SlackUser{}, text: "train-7",
			want: refused + "I could not tell who you are, so I cannot look anything up for you.\n",
		},
		{
			name: "empty identity is refused",
			user: alice, text: "train-7",
			resolver:    &fakeResolver{ids: map[string]rbac.Identity{alice.ID: {}}},
			want:        refused + "You are not set up to use kueuebot yet. Ask your platform team to map your Slack account to a Kubernetes user.\n",
			wantResolve: true,
		},
		{
			name: "diagnosis",
			user: alice, text: "<@U0BOT> why is jobset train-7 waiting in ns team-a?",
			want:         blocks.Text(blocks.Report(waitingReport(), blocks.Options{}).Blocks),
			wantResolve:  true,
			wantDiagnose: []diagnoseCall{{ID: aliceID, Req: parse.Request{Intent: parse.IntentDiagnose, Kind: "JobSet", Name: "train-7", Namespace: "team-a"}}},
		},
		{
			name: "diagnoser internal error does not leak",
			user: alice, text: "train-7",
			diag:         &fakeDiagnoser{err: errInternal},
			want:         "Something went wrong while I looked at `train-7`. Please try again later; if it keeps happening, tell your platform team.\n",
			wantResolve:  true,
			wantDiagnose: []diagnoseCall{{ID: aliceID, Req: parse.Request{Intent: parse.IntentDiagnose, Name: "train-7"}}},
		},
		{
			name: "diagnoser user message",
			user: alice, text: "train-7 -n team-b",
			diag:         &fakeDiagnoser{err: fmt.Errorf("fetch: %w", &userError{msg: "Cluster prod is in maintenance.", internal: "x"})},
			want:         "Cluster prod is in maintenance.\n",
			wantResolve:  true,
			wantDiagnose: []diagnoseCall{{ID: aliceID, Req: parse.Request{Intent: parse.IntentDiagnose, Name: "train-7", Namespace: "team-b"}}},
		},
		{
			name: "diagnoser timeout",
			user: alice, text: "train-7",
			diag:         &fakeDiagnoser{block: true},
			timeout:      10 * time.Millisecond,
			want:         "I gave up looking at `train-7` in the cluster: it took too long. The cluster or Slack may be busy; please try again in a minute.\n",
			wantResolve:  true,
			wantDiagnose: []diagnoseCall{{ID: aliceID, Req: parse.Request{Intent: parse.IntentDiagnose, Name: "train-7"}}},
		},
		{
			name: "queues without a lister",
			user: alice, text: "queue team-a",
			want:        "I cannot list queues here. Ask me about a job instead, e.g. `why is train-7 waiting?`\n",
			wantResolve: true,
		},
		{
			name: "unknown user asking about a queue is refused",
			user: rbac.SlackUser{ID: "U0STRANGER"}, text: "queue team-a",
			want:        refused + "You are not allowed to use kueuebot. Ask your platform team for access.\n",
			wantResolve: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.resolver
			if res == nil {
				res = &fakeResolver{ids: map[string]rbac.Identity{alice.ID: aliceID}}
			}
			diag := tt.diag
			if diag == nil {
				diag = &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}}
			}
			a := &Asker{Resolve: res, Explain: diag, Timeout: tt.timeout}
			m := a.Ask(t.Context(), tt.user, tt.text)

			// Fit changes only what breaks Slack's limits (blocks' own
			// tests hold its output to them).
			if diff := cmp.Diff(m.Blocks, blocks.Fit(m.Blocks, "")); diff != "" {
				t.Errorf("answer breaks Slack limits (-sent +fitted):\n%s", diff)
			}
			if m.Text == "" {
				t.Errorf("answer has no fallback text")
			}
			if diff := cmp.Diff(tt.want, blocks.Text(m.Blocks)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			for _, leak := range []string{"10.0.0.7", "sk-secret", "static map"} {
				if strings.Contains(blocks.Text(m.Blocks)+m.Text, leak) {
					t.Errorf("answer leaks %q", leak)
				}
			}
			if got := len(res.calls) > 0; got != tt.wantResolve {
				t.Errorf("resolver called: %v, want %v", got, tt.wantResolve)
			}
			if diff := cmp.Diff(tt.wantDiagnose, diag.calls); diff != "" {
				t.Errorf("Diagnose calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAskEscapesRefusalInBlocks checks the Block Kit side of a refusal: a
// user message from the resolver is escaped mrkdwn.
func TestAskEscapesRefusalInBlocks(t *testing.T) {
	a := &Asker{
		Resolve: &fakeResolver{err: &userError{msg: "No <!here> for <@U1> & co", internal: "x"}},
		Explain: &fakeDiagnoser{},
	}
	m := a.Ask(t.Context(), alice, "train-7")
	s, ok := m.Blocks[1].(*slack.SectionBlock)
	if !ok {
		t.Fatalf("block 1 is %T, want a section", m.Blocks[1])
	}
	if diff := cmp.Diff("No &lt;!here&gt; for &lt;@U1&gt; &amp; co", s.Text.Text); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
	if !s.Text.Verbatim {
		t.Errorf("refusal text is not verbatim")
	}
}
