package e2e

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/internal/faultproxy"
)

// faultTimeout is the per-request timeout of the diagnoses in
// TestFaultInjection: above client-go's 1 s wait before it retries a reset
// or a 429 with Retry-After: 1, below what a hang lasts.
const faultTimeout = 2500 * time.Millisecond

// TestFaultInjection puts a fault-injecting proxy in front of the sandbox's
// API server and fails, in turn, every request of alice's diagnosis of a
// pending job (sc-quota-in-use/waiting) and of an admitted one
// (sc-quota-in-use/big), with Kueue's viewer roles, with a 500, a 503, a 429 with Retry-After, a hang
// past the timeout and a reset. A fault must never become a fact about the
// job: the answer is a *fetch.ReadError that says which read failed, or a
// report with the same verdict as without the fault that marks what it
// could not read (429 and reset are retried by client-go and leave nothing
// missing).
func TestFaultInjection(t *testing.T) {
	sb := sandbox(t)
	grantQuotaViewer(t, sb, "alice") // so that the ClusterQueue, flavors and cohort are read too
	alice, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig-alice"))
	if err != nil {
		t.Fatal(err)
	}
	backend, err := url.Parse(alice.Host)
	if err != nil {
		t.Fatal(err)
	}
	// The proxy speaks TLS and alice's token to the API server; the
	// clients speak plain HTTP to the proxy on loopback.
	transport, err := rest.TransportFor(alice)
	if err != nil {
		t.Fatal(err)
	}
	sem := make(chan struct{}, 8) // bounded load on the shared sandbox
	for _, tc := range []struct{ name, job string }{
		{"pending", "waiting"},
		{"admitted", "big"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := diagnose.Target{Kind: "Job", Namespace: "sc-quota-in-use", Name: tc.job}
			p := faultproxy.New(backend, transport)
			defer p.Close()
			p.Arm(0, "")
			s, err := proxiedFetcher(t, p.URL).Fetch(t.Context(), target)
			if err != nil {
				t.Fatalf("without faults: %v", err)
			}
			base := diagnose.Analyze(s)
			if len(base.Gaps) != 0 || base.Verdict.Code == diagnose.CodeNotFound {
				t.Fatalf("without faults: %s/%s, gaps %v; is the quota-in-use scenario applied (make sandbox-scenarios)?", base.Verdict.Code, base.Verdict.Cause, base.Gaps)
			}
			n := p.Count()
			t.Logf("%s (%s/%s): %d requests per diagnosis: %s", tc.name, base.Verdict.Code, base.Verdict.Cause, n, strings.Join(p.Requests(), ", "))
			for i := 1; i <= n; i++ {
				for _, f := range faultproxy.All() {
					t.Run(fmt.Sprintf("%d-%s", i, f), func(t *testing.T) {
						t.Parallel()
						sem <- struct{}{}
						defer func() { <-sem }()
						fp := faultproxy.New(backend, transport)
						defer fp.Close()
						fp.MaxHang = 3 * faultTimeout
						fp.Arm(i, f)
						s, err := proxiedFetcher(t, fp.URL).Fetch(t.Context(), target)
						if !fp.Hit() {
							t.Fatalf("request %d never came: %v", i, fp.Requests())
						}
						checkFault(t, f, base.Verdict, s, err)
					})
				}
			}
		})
	}
}

func proxiedFetcher(t *testing.T, host string) *fetch.Fetcher {
	t.Helper()
	cfg := &rest.Config{Host: host, QPS: -1}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kq, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fetch.Fetcher{Kube: kube, Kueue: kq, Dynamic: dyn, Timeout: faultTimeout}
}

func checkFault(t *testing.T, f faultproxy.Fault, base diagnose.Verdict, s *diagnose.Snapshot, err error) {
	t.Helper()
	retried := f == faultproxy.TooManyRequests || f == faultproxy.Reset
	if err != nil {
		var re *fetch.ReadError
		if !errors.As(err, &re) {
			t.Fatalf("error %v (%T), want a *fetch.ReadError", err, err)
		}
		if msg := re.UserMessage(); !strings.Contains(msg, "when I read ") || !strings.Contains(msg, "did not judge your job") {
			t.Errorf("UserMessage %q does not say which read failed and that the job was not judged", msg)
		}
		if retried {
			t.Errorf("client-go retries a %s, yet the diagnosis failed: %v", f, err)
		}
		return
	}
	r := diagnose.Analyze(s)
	if r.Verdict.Code != base.Code {
		t.Errorf("verdict %s/%s (%s), want %s as without the fault; gaps %v", r.Verdict.Code, r.Verdict.Cause, r.Verdict.Headline, base.Code, r.Gaps)
	}
	for _, g := range r.Gaps {
		if g.Reason == diagnose.GapNotFound || g.Reason == diagnose.GapForbidden {
			t.Errorf("a %s became the answer %s for %s %s", f, g.Reason, g.Kind, g.Name)
		}
	}
	if len(r.Gaps) == 0 && (r.Verdict.Cause != base.Cause || r.Verdict.Headline != base.Headline) {
		t.Errorf("a %s changed the verdict without a gap: %s/%s %q, want %s/%s %q", f, r.Verdict.Code, r.Verdict.Cause, r.Verdict.Headline, base.Code, base.Cause, base.Headline)
	}
	if retried && len(r.Gaps) != 0 {
		t.Errorf("client-go retries a %s, yet gaps %v", f, r.Gaps)
	}
}
