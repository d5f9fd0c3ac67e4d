package diagnose_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/kueuebot/kueuebot/diagnose"
)

// TestPodsReadyTimeoutWithConfig: when Kueue's Configuration could be read,
// the PodsReadyTimeout answer gives the timeout, the requeue limit and how
// many evictions are left; at the limit it says the next timeout
// deactivates the Workload.
func TestPodsReadyTimeoutWithConfig(t *testing.T) {
	for _, c := range []struct {
		limit *int32
		want  []string
	}{
		{ptr.To[int32](3), []string{"waitForPodsReady timeout of 5m0s", "1 (status.requeueState.count) of at most 3", "After 2 more such eviction(s)"}},
		{ptr.To[int32](1), []string{"The limit is reached: if its pods time out once more, Kueue deactivates the Workload"}},
		{nil, []string{"sets no requeue limit: it retries forever"}},
	} {
		_, s := loadCase(t, "testdata/cases/requeuing-pods-ready-timeout.txtar")
		s.KueueConfig = &diagnose.KueueConfig{WaitForPodsReady: &diagnose.WaitForPodsReady{Timeout: 5 * time.Minute, BackoffLimitCount: c.limit}}
		r := diagnose.Analyze(s)
		if r.Verdict.Cause != diagnose.CausePodsReadyTimeout {
			t.Fatalf("verdict %s/%s, want Requeuing/PodsReadyTimeout", r.Verdict.Code, r.Verdict.Cause)
		}
		for _, w := range c.want {
			if !strings.Contains(r.Verdict.Detail, w) {
				t.Errorf("limit %v: detail %q, want %q in it", c.limit, r.Verdict.Detail, w)
			}
		}
		raise := ""
		for _, m := range r.Remedies {
			if m.Code == "RaisePodsReadyTimeout" {
				raise = m.Summary
			}
		}
		if !strings.Contains(raise, "waitForPodsReady.timeout (now 5m0s)") {
			t.Errorf("RaisePodsReadyTimeout remedy %q does not give the current timeout", raise)
		}
	}
}

// TestRequeuingLimitWithConfig: a Workload deactivated at the requeue
// limit is told with the limit and the timeout when they are known.
func TestRequeuingLimitWithConfig(t *testing.T) {
	_, s := loadCase(t, "testdata/cases/deactivated-requeuing-limit.txtar")
	s.KueueConfig = &diagnose.KueueConfig{WaitForPodsReady: &diagnose.WaitForPodsReady{Timeout: 10 * time.Minute, BackoffLimitCount: ptr.To[int32](2)}}
	r := diagnose.Analyze(s)
	want := "within Kueue's waitForPodsReady timeout of 10m0s after 2 requeue(s), the backoffLimitCount"
	if r.Verdict.Cause != diagnose.CauseRequeuingLimitExceeded || !strings.Contains(r.Verdict.Detail, want) {
		t.Errorf("verdict %s/%s %q, want RequeuingLimitExceeded with %q", r.Verdict.Code, r.Verdict.Cause, r.Verdict.Detail, want)
	}
}
