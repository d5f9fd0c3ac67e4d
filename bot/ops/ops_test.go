package ops

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestServerEndpoints: /healthz is always ok, /readyz follows Readiness
// with its reason, /metrics serves the registry given, and only GET is
// served.
func TestServerEndpoints(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "kueuebot_test_total", Help: "test"})
	reg.MustRegister(c)
	c.Inc()
	ready := &Readiness{}
	srv := httptest.NewServer((&Server{Gatherer: reg, Ready: ready}).Handler())
	defer srv.Close()
	get := func(method, path string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	if code, body := get(http.MethodGet, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	if code, body := get(http.MethodGet, "/readyz"); code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "not ready") {
		t.Errorf("/readyz before Set = %d %q, want 503 not ready", code, body)
	}
	ready.Set(true, "connected to Slack (Socket Mode)")
	if code, body := get(http.MethodGet, "/readyz"); code != http.StatusOK || body != "ok: connected to Slack (Socket Mode)\n" {
		t.Errorf("/readyz when ready = %d %q", code, body)
	}
	ready.Set(false, "shutting down")
	if code, body := get(http.MethodGet, "/readyz"); code != http.StatusServiceUnavailable || body != "not ready: shutting down\n" {
		t.Errorf("/readyz when stopping = %d %q", code, body)
	}
	if code, body := get(http.MethodGet, "/metrics"); code != http.StatusOK || !strings.Contains(body, "kueuebot_test_total 1") {
		t.Errorf("/metrics = %d, without the registry's counter:\n%s", code, body)
	}
	if code, _ := get(http.MethodPost, "/healthz"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz = %d, want 405", code)
	}
	if ok, reason := (*Readiness)(nil).Ready(); ok || reason == "" {
		t.Errorf("nil Readiness = %v %q, want not ready with a reason", ok, reason)
	}
}
