package main

import (
	"bytes"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestServerAndTokenReachTheAPIServer: kubectl's --server, --token and
// --certificate-authority (and --as) are honoured by every command that reads a cluster: the requests
// reach the API server they name, on loopback, with the token and the
// impersonated user, and no kubeconfig is needed.
func TestServerAndTokenReachTheAPIServer(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]int{}
	impersonated := map[string]int{}
	paths := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")]++
		impersonated[r.Header.Get("Impersonate-User")]++
		paths++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
	}))
	defer srv.Close()
	// client-go sends credentials only over TLS: trust the server's
	// certificate with kubectl's --certificate-authority.
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir()) // no ~/.kube/config of the machine

	for _, tc := range []struct {
		name string
		args []string
		as   string
	}{
		{"diagnose", []string{"diagnose", "job/train", "-n", "team-a"}, ""},
		{"digest", []string{"digest", "--namespace", "team-a", "--as", "alice"}, "alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(auth)
			clear(impersonated)
			paths = 0
			mu.Unlock()
			var out, errOut bytes.Buffer
			args := append(slices.Clone(tc.args), "--server", srv.URL, "--token", "t0ken", "--certificate-authority", ca, "--request-timeout", "5s")
			code := run(t.Context(), args, strings.NewReader(""), &out, &errOut)
			mu.Lock()
			defer mu.Unlock()
			if paths == 0 {
				t.Fatalf("no request reached the --server (exit %d): %s", code, errOut.String())
			}
			if auth["Bearer t0ken"] != paths {
				t.Errorf("%d of %d requests carried the --token: %v", auth["Bearer t0ken"], paths, auth)
			}
			if impersonated[tc.as] != paths {
				t.Errorf("requests impersonated %v, want all as %q", impersonated, tc.as)
			}
		})
	}
}
