package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDiagnoseClusterFault: an API server that fails is an error of the
// command (exit 1) that says which read failed, never a NotFound verdict.
func TestRunDiagnoseClusterFault(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"503", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) },
			"the cluster answered with a server error (HTTP 503 Service Unavailable)"},
		{"hang", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "the cluster did not answer in 500ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: team-a}}]
current-context: c
`, srv.URL)
			if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := run(t.Context(), []string{"diagnose", "sample-job", "--kubeconfig", kubeconfig, "--request-timeout", "500ms"}, strings.NewReader(""), &out, &errOut)
			if code != exitError {
				t.Fatalf("exit %d, want %d; stdout: %s; stderr: %s", code, exitError, out.String(), errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want no report", out.String())
			}
			for _, want := range []string{"reading the Job team-a/sample-job", tc.want, "the job itself was not judged"} {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q: %s", want, errOut.String())
				}
			}
		})
	}
}
