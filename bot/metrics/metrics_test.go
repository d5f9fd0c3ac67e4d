package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
