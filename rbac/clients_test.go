package rbac

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kueuebot/kueuebot/config"
)

// headerRecorder is an API server stand-in that records impersonation
// headers and answers every request with an empty list.
type headerRecorder struct {
	mu   sync.Mutex
	seen []http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	imp := http.Header{}
	for k, v := range r.Header {
		if strings.HasPrefix(k, "Impersonate-") {
			imp[k] = v
		}
	}
	h.seen = append(h.seen, imp)
	h.mu.Unlock()
	kinds := map[string]string{
		"pods":          `"kind":"PodList","apiVersion":"v1"`,
		"workloads":     `"kind":"WorkloadList","apiVersion":"kueue.x-k8s.io/v1beta2"`,
		"clusterqueues": `"kind":"ClusterQueueList","apiVersion":"kueue.x-k8s.io/v1beta2"`,
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{` + kinds[r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]] + `,"metadata":{},"items":[]}`))
}

func (h *headerRecorder) last() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[len(h.seen)-1]
}

func TestClientsFor(t *testing.T) {
	rec := &headerRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	base := &rest.Config{Host: srv.URL, BearerToken: "bot-token",
		Impersonate: rest.ImpersonationConfig{UserName: "from-kubeconfig"}}

	alice := Identity{User: "alice", Groups: []string{"team-a", "ml"}, Extra: map[string][]string{ExtraSlackUserID: {"U0000ALICE"}}, Namespaces: []string{"team-a"}}
	c, err := ClientsFor(base, alice)
	if err != nil {
		t.Fatalf("ClientsFor: %v", err)
	}

	reads := map[string]func() error{
		"kube": func() error {
			_, err := c.Kube.CoreV1().Pods("team-a").List(t.Context(), metav1.ListOptions{})
			return err
		},
		"kueue": func() error {
			_, err := c.Kueue.KueueV1beta2().Workloads("team-a").List(t.Context(), metav1.ListOptions{})
			return err
		},
	}
	want := http.Header{
		"Impersonate-User":  {"alice"},
		"Impersonate-Group": {"team-a", "ml"},
		"Impersonate-Extra-Kueuebot.io%2fslack-User-Id": {"U0000ALICE"},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			if err := read(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, rec.last()); diff != "" {
				t.Errorf("impersonation headers (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("base config untouched", func(t *testing.T) {
		if diff := cmp.Diff(rest.ImpersonationConfig{UserName: "from-kubeconfig"}, base.Impersonate); diff != "" {
			t.Errorf("base.Impersonate changed (-want +got):\n%s", diff)
		}
	})
	t.Run("identity copied", func(t *testing.T) {
		alice.Groups[0] = "system:masters"
		if c.Config.Impersonate.Groups[0] != "team-a" || c.Identity.Groups[0] != "team-a" {
			t.Error("Clients share the caller's slices")
		}
	})
}

func TestClientsForRefuses(t *testing.T) {
	base := &rest.Config{Host: "http://127.0.0.1:1"}
	tests := []struct {
		name string
		base *rest.Config
		id   Identity
		is   error
	}{
		{"empty identity", base, Identity{}, ErrEmptyIdentity},
		{"blank user", base, Identity{User: "  ", Groups: []string{"team-a"}}, ErrEmptyIdentity},
		{"groups but no user", base, Identity{Groups: []string{"team-a"}}, ErrEmptyIdentity},
		{"system:masters", base, Identity{User: "alice", Groups: []string{"system:masters"}}, nil},
		{"any system group", base, Identity{User: "alice", Groups: []string{"system:serviceaccounts"}}, nil},
		{"system user", base, Identity{User: "system:admin"}, nil},
		{"service account user", base, Identity{User: "system:serviceaccount:kube-system:default"}, nil},
		{"case and padding", base, Identity{User: "alice", Groups: []string{" System:Masters"}}, nil},
		{"empty group", base, Identity{User: "alice", Groups: []string{""}}, nil},
		{"empty extra", base, Identity{User: "alice", Extra: map[string][]string{ExtraSlackUserID: nil}}, nil},
		{"nil base", nil, Identity{User: "alice"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ClientsFor(tt.base, tt.id)
			if err == nil || c != nil {
				t.Fatalf("ClientsFor: got (%v, %v), want refusal", c, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestClusterScopedClient(t *testing.T) {
	rec := &headerRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	base := &rest.Config{Host: srv.URL, Impersonate: rest.ImpersonationConfig{UserName: "someone"}}

	t.Run("caller mode builds nothing", func(t *testing.T) {
		c, err := ClusterScopedClient(base, config.ClusterScopedCaller)
		if err != nil || c != nil {
			t.Fatalf("got (%v, %v), want (nil, nil)", c, err)
		}
	})
	t.Run("bot mode reads as the bot", func(t *testing.T) {
		c, err := ClusterScopedClient(base, config.ClusterScopedBot)
		if err != nil || c == nil {
			t.Fatalf("got (%v, %v)", c, err)
		}
		if _, err := c.KueueV1beta2().ClusterQueues().List(t.Context(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(http.Header{}, rec.last()); diff != "" {
			t.Errorf("bot read impersonated (-want +got):\n%s", diff)
		}
	})
	t.Run("unknown policy", func(t *testing.T) {
		if _, err := ClusterScopedClient(base, "admin"); err == nil {
			t.Fatal("want error")
		}
	})
}
