package bot

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kueuebot/kueuebot/internal/slackfake"
)

func TestKubeVerb(t *testing.T) {
	tests := []struct {
		method, path, want string
	}{
		{"GET", "/api/v1/namespaces/team-a/pods", "list"},
		{"GET", "/api/v1/namespaces/team-a/pods?watch=true", "watch"},
		{"GET", "/api/v1/namespaces/team-a/pods/p1", "get"},
		{"GET", "/api/v1/namespaces/team-a/pods/p1/log", "get"},
		{"GET", "/api/v1/namespaces", "list"},
		{"GET", "/api/v1/namespaces/team-a", "get"},
		{"GET", "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads", "list"},
		{"GET", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq", "get"},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "create"},
		{"GET", "/api", "discovery"},
		{"GET", "/apis", "discovery"},
		{"GET", "/apis/kueue.x-k8s.io/v1beta2", "discovery"},
		{"GET", "/version", "discovery"},
		{"DELETE", "/api/v1/namespaces/a/pods", "deletecollection"},
		{"PATCH", "/api/v1/namespaces/a/pods/p", "patch"},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, tt.path, nil)
		if got := kubeVerb(req); got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.method, tt.path, got, tt.want)
		}
	}
}

// TestWrapKubeTransport counts requests by verb and outcome.
func TestWrapKubeTransport(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "forbidden") {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: m.WrapKubeTransport(http.DefaultTransport)}
	for _, p := range []string{"/api/v1/namespaces/a/pods", "/api/v1/namespaces/a/pods/forbidden", "/api/v1/namespaces/a/pods/ok"} {
		resp, err := c.Get(srv.URL + p) //nolint:noctx // loopback test
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, tc := range []struct {
		verb, outcome string
		want          float64
	}{{"list", "ok", 1}, {"get", "forbidden", 1}, {"get", "ok", 1}} {
		if got := testutil.ToFloat64(m.kube.WithLabelValues(tc.verb, tc.outcome)); got != tc.want {
			t.Errorf("kube %s/%s = %v, want %v", tc.verb, tc.outcome, got, tc.want)
		}
	}
	if (*Metrics)(nil).WrapKubeTransport(http.DefaultTransport) != http.DefaultTransport {
		t.Error("nil metrics must not wrap")
	}
}

// TestSlackAPIMetrics: Web API calls are counted by method, and failures
// by Slack's error code, 429s included (each retry counts).
func TestSlackAPIMetrics(t *testing.T) {
	fs := slackfake.New(t)
	m := NewMetrics(prometheus.NewRegistry())
	api := NewSlackClient(SlackClientOptions{BotToken: "xoxb-test", APIURL: fs.APIURL(), Metrics: m})
	r := &SlackReplier{API: api}
	fs.Fail("chat.postEphemeral", 1, "channel_not_found")
	err := r.PostEphemeral(t.Context(), "C1", "U1", "", Message{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "channel_not_found") {
		t.Fatalf("PostEphemeral = %v", err)
	}
	fs.RateLimit("chat.postMessage", 1, 1)
	if _, err := r.Post(t.Context(), "C1", "", Message{Text: "x"}); err != nil {
		t.Fatalf("Post after a 429: %v", err)
	}
	fs.Fail(slackfake.MethodResponseURL, 1, "expired_url")
	if err := r.Respond(t.Context(), fs.ResponseURL("x"), Message{Text: "x"}, RespondOptions{}); err == nil {
		t.Error("Respond to an expired response_url succeeded")
	}
	for _, tc := range []struct {
		c    prometheus.Collector
		want float64
	}{
		{m.slackCalls.WithLabelValues("chat.postEphemeral"), 1},
		{m.slackErrors.WithLabelValues("chat.postEphemeral", "channel_not_found"), 1},
		{m.slackCalls.WithLabelValues("chat.postMessage"), 2},
		{m.slackErrors.WithLabelValues("chat.postMessage", "ratelimited"), 1},
		{m.slackErrors.WithLabelValues("response_url", "http_404"), 1},
	} {
		if got := testutil.ToFloat64(tc.c); got != tc.want {
			t.Errorf("%v = %v, want %v", tc.c, got, tc.want)
		}
	}
	var rl interface{ Retryable() bool }
	fs.RateLimit("chat.postMessage", MaxSlackRetries+1, 1)
	if testing.Short() {
		return
	}
	_, err = r.Post(t.Context(), "C1", "", Message{Text: "x"})
	if !errors.As(err, &rl) {
		t.Errorf("after %d 429s: %v, want a rate-limit error", MaxSlackRetries+1, err)
	}
}

// TestQuestionMetrics: answers are counted by entry point and verdict, busy
// refusals apart.
func TestQuestionMetrics(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	h := startSocket(t, harnessOptions{metrics: m})
	h.send(t, mention("q1", "train-7"))
	h.post(t)
	h.send(t, slackfake.SlashEnvelope("s1", slackfake.SlashCommand(alice.ID, "C1", "help", h.fs.ResponseURL("s1"), "t1")))
	h.post(t)
	if err := h.stop(t, 5e9); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(m.questions.WithLabelValues("mention", "WaitingForQuota")); got != 1 {
		t.Errorf("mention/WaitingForQuota = %v", got)
	}
	if got := testutil.ToFloat64(m.questions.WithLabelValues("slash", "help")); got != 1 {
		t.Errorf("slash/help = %v", got)
	}
	if n := testutil.CollectAndCount(m.latency); n != 2 {
		t.Errorf("latency series = %d, want 2", n)
	}
	if n := testutil.CollectAndCount(m.ack); n != 1 {
		t.Errorf("ack series = %d, want 1 (socket)", n)
	}
}
