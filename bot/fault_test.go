package bot

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// TestAskClusterFaults: a sick API server is told as such, never as a
// missing job, and never as a generic failure.
func TestAskClusterFaults(t *testing.T) {
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("no healthy upstream"))
	}))
	defer unavailable.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	_ = l.Close()

	for _, tc := range []struct {
		name, host, text string
		discover         bool
		want             string
	}{
		{name: "503 on the job", host: unavailable.URL, text: "sample-job -n team-a",
			want: "The cluster answered with a server error (HTTP 503 Service Unavailable) when I read the Job team-a/sample-job, so I did not judge your job."},
		{name: "503 in every configured namespace", host: unavailable.URL, text: "sample-job",
			want: "The cluster answered with a server error (HTTP 503 Service Unavailable) when I read the Job team-a/sample-job, so I did not judge your job."},
		{name: "connection refused", host: refused, text: "sample-job -n team-a",
			want: "The cluster could not be reached when I read the Job team-a/sample-job, so I did not judge your job."},
		{name: "connection refused while finding namespaces", host: refused, text: "sample-job", discover: true,
			want: "The cluster could not be reached when I read which namespaces you may use, so I did not judge your job."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &rest.Config{Host: tc.host, Timeout: 5 * time.Second}
			botClient, err := kueueclient.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			id := aliceID
			if tc.discover {
				id.Namespaces = nil
			}
			a := &Asker{
				Resolve: &fakeResolver{ids: map[string]rbac.Identity{alice.ID: id}},
				Explain: &explain.Explainer{Reader: &explain.KubeReader{Base: cfg, Finder: &rbac.NamespaceFinder{Bot: botClient, Max: 10}, Timeout: 2 * time.Second}},
			}
			got := blocks.Text(a.Ask(t.Context(), alice, tc.text).Blocks)
			if !strings.Contains(got, tc.want) {
				t.Errorf("answer = %q, want it to contain %q", got, tc.want)
			}
			for _, wrong := range []string{"can't find", "Something went wrong"} {
				if strings.Contains(got, wrong) {
					t.Errorf("answer %q says %q about a sick cluster", got, wrong)
				}
			}
		})
	}
}
