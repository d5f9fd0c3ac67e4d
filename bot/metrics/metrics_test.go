package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
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
	m := New(prometheus.NewRegistry())
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

// TestNotified: each notification DM counts by event, and the delay from
// the watch to the post is observed only when the watch saw it.
func TestNotified(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	seen := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	m.Notified("Admitted", seen, seen.Add(1500*time.Millisecond))
	m.Notified("Admitted", time.Time{}, seen)
	m.Notified("Succeeded", seen, seen.Add(12*time.Second))
	if got := testutil.ToFloat64(m.notified.WithLabelValues("Admitted")); got != 2 {
		t.Errorf("admitted notifications = %v, want 2", got)
	}
	if got := testutil.CollectAndCount(m.notifyDelay); got != 1 {
		t.Fatalf("%d delay series, want 1", got)
	}
	want := `
# HELP kueuebot_notification_delay_seconds Time from the watch showing a subscribed job's transition to its DM being posted.
# TYPE kueuebot_notification_delay_seconds histogram
kueuebot_notification_delay_seconds_bucket{le="0.1"} 0
kueuebot_notification_delay_seconds_bucket{le="0.25"} 0
kueuebot_notification_delay_seconds_bucket{le="0.5"} 0
kueuebot_notification_delay_seconds_bucket{le="1"} 0
kueuebot_notification_delay_seconds_bucket{le="2"} 1
kueuebot_notification_delay_seconds_bucket{le="3"} 1
kueuebot_notification_delay_seconds_bucket{le="5"} 1
kueuebot_notification_delay_seconds_bucket{le="8"} 1
kueuebot_notification_delay_seconds_bucket{le="10"} 1
kueuebot_notification_delay_seconds_bucket{le="15"} 2
kueuebot_notification_delay_seconds_bucket{le="30"} 2
kueuebot_notification_delay_seconds_bucket{le="60"} 2
kueuebot_notification_delay_seconds_bucket{le="+Inf"} 2
kueuebot_notification_delay_seconds_sum 13.5
kueuebot_notification_delay_seconds_count 2
`
	if err := testutil.CollectAndCompare(m.notifyDelay, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	var nilMetrics *Metrics
	nilMetrics.Notified("Admitted", seen, seen) // no metrics configured: no panic
}
