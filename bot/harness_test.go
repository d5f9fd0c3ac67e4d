package bot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack/socketmode"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/ops"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

func (f *fakeDiagnoser) Calls() []diagnoseCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]diagnoseCall(nil), f.calls...)
}

func (f *fakeResolver) Calls() []rbac.SlackUser {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rbac.SlackUser(nil), f.calls...)
}

// bob is a second mapped user: buttons pressed by him are answered as him.
var bob = rbac.SlackUser{ID: "U00000BOB", TeamID: slackfake.TeamID}

var bobID = rbac.Identity{User: "bob@example.com", Groups: []string{"team-b"}, Namespaces: []string{"team-b"}}

// carol is not mapped.
var carol = rbac.SlackUser{ID: "U0000CAROL", TeamID: slackfake.TeamID}

func testResolver() *fakeResolver {
	return &fakeResolver{ids: map[string]rbac.Identity{alice.ID: aliceID, bob.ID: bobID}}
}

// detailedReport is waitingReport with a quota row and evidence, which the
// compact answer leaves out.
func detailedReport() diagnose.Report {
	r := waitingReport()
	r.Quota = []diagnose.QuotaRow{{PodSet: "main", Flavor: "gpu-a100", Resource: "nvidia.com/gpu", Requested: resource.MustParse("8"), Nominal: resource.MustParse("4"), Eligible: true}}
	r.Evidence = []diagnose.Evidence{{Source: "Workload/jobset-train-7-3f2a1", Kind: "Condition", Reason: "Pending", Message: "insufficient quota for nvidia.com/gpu"}}
	return r
}

// The Bot is the dispatcher's handler.
var _ dispatch.Handler[Reply] = (*Bot)(nil)

// socketHarness runs the Socket Mode transport and a Dispatcher against the
// fake Slack, with the real socketmode client and the real Web API client.
type socketHarness struct {
	fs     *slackfake.Server
	conn   *websocket.Conn
	disp   *dispatch.Dispatcher[Reply]
	diag   *fakeDiagnoser
	res    *fakeResolver
	ready  *ops.Readiness
	cancel context.CancelFunc
	errc   chan error
}

type harnessOptions struct {
	mode    ReplyMode
	disp    dispatch.Options
	diag    *fakeDiagnoser
	jobs    JobLister
	queues  QueueLister
	check   Checker
	notify  Subscriber
	metrics *metrics.Metrics
}

func startSocket(t *testing.T, o harnessOptions) *socketHarness {
	t.Helper()
	fs := slackfake.New(t)
	diag := o.diag
	if diag == nil {
		diag = &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": detailedReport()}}
	}
	res := testResolver()
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: "xoxb-test", AppToken: "xapp-test", APIURL: fs.APIURL(), Metrics: o.metrics})
	replier := &delivery.SlackReplier{API: api}
	b := &Bot{Asker: &Asker{Resolve: res, Explain: diag, Jobs: o.jobs, Queues: o.queues, Check: o.check, Notify: o.notify}, Replier: replier, Files: replier, Replies: o.mode}
	o.disp.Metrics = o.metrics
	disp := dispatch.New(b, o.disp)
	ready := &ops.Readiness{}
	sm := &transport.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: &transport.Decoder{}, Ready: ready, Metrics: o.metrics}
	ctx, cancel := context.WithCancel(context.Background())
	h := &socketHarness{fs: fs, disp: disp, diag: diag, res: res, ready: ready, cancel: cancel, errc: make(chan error, 1)}
	go func() { h.errc <- sm.Run(ctx) }()
	h.conn = slackfake.Receive(t, fs.Conns, "the Socket Mode connection")
	t.Cleanup(func() {
		cancel()
		_ = disp.Shutdown(context.Background())
	})
	return h
}

// send writes an envelope and waits for its ack.
func (h *socketHarness) send(t *testing.T, env map[string]any) {
	t.Helper()
	if _, err := h.fs.Send(h.conn, env); err != nil {
		t.Fatalf("sending %v: %v", env["envelope_id"], err)
	}
	id := env["envelope_id"].(string)
	deadline := time.After(10 * time.Second)
	for {
		if _, ok := h.fs.AckedAt(id); ok {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("envelope %s was not acked", id)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// stop ends the transport and drains the dispatcher, as serve does on
// SIGTERM.
func (h *socketHarness) stop(t *testing.T, grace time.Duration) error {
	t.Helper()
	h.cancel()
	if err := slackfake.Receive(t, h.errc, "Run to return"); err != nil {
		t.Errorf("Run = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return h.disp.Shutdown(ctx)
}

// post waits for the next write to Slack.
func (h *socketHarness) post(t *testing.T) slackfake.Post {
	t.Helper()
	return slackfake.Receive(t, h.fs.Posts, "a write to Slack")
}

// textOf is the mrkdwn and plain text of a Block Kit JSON, for assertions.
func textOf(t *testing.T, blocksJSON string) string {
	t.Helper()
	if blocksJSON == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(blocksJSON), &v); err != nil {
		t.Fatalf("blocks %q: %v", blocksJSON, err)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				b.WriteString(s)
				b.WriteString("\n")
			}
			if s, ok := x["value"].(string); ok {
				b.WriteString("value=" + s + "\n")
			}
			if s, ok := x["action_id"].(string); ok {
				b.WriteString("action=" + s + "\n")
			}
			for _, k := range []string{"text", "elements", "fields", "options", "accessory", "rows"} {
				if c, ok := x[k]; ok {
					if _, isStr := c.(string); !isStr {
						walk(c)
					}
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
