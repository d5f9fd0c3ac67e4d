package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// Findings: states recorded from the real Kueue in the sandbox where the
// verdict kueuebot gave was not the right one. Each test asserts the right
// answer on the recorded state.

func replay(t *testing.T, dump string, target diagnose.Target) diagnose.Report {
	t.Helper()
	s, err := snapshotOf([]string{dump}, target, time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Analyze(s)
}

// A Workload evicted because its Pods were not ready in time
// (waitForPodsReady) and now in requeue backoff: the user needs to hear why
// it was evicted (PodsReadyTimeout), not only that it waits for a backoff.
func TestFindingPodsReadyTimeoutIsTheCause(t *testing.T) {
	r := replay(t, filepath.Join(repoRoot(), "deploy", "examples", "scenarios", "pods-ready-timeout.yaml"),
		diagnose.Target{Kind: "Job", Namespace: "sc-pods-ready-timeout", Name: "slow"})
	if r.Verdict.Code != diagnose.CodeRequeuing || r.Verdict.Cause != diagnose.CausePodsReadyTimeout {
		t.Errorf("verdict %s/%s, want Requeuing/PodsReadyTimeout: %s", r.Verdict.Code, r.Verdict.Cause, r.Verdict.Headline)
	}
}

// A JobSet whose driver fits flavor on-demand and whose workers ask for
// nodeSelector instance-type=spot, a flavor tainted spot=true: the flavor
// that matches the workers' nodeSelector is ruled out only by its taint, so
// the cause is UntoleratedTaint (add a toleration), and the answer names
// pod set workers (the driver fits). Kueue's own condition message names
// pod set driver here (it resumes the flavor search where the last attempt
// stopped), so it cannot be taken at its word. Scenario
// jobset-selector-tainted-flavor; testdata/finding-jobset-nodeselector-and-taint.yaml
// is the state first recorded, where Kueue's message names the driver.
func TestFindingNodeSelectorAndTaint(t *testing.T) {
	for _, c := range []struct{ dump, ns string }{
		{filepath.Join("testdata", "finding-jobset-nodeselector-and-taint.yaml"), "sc-jobset-workers-no-flavor"},
		{filepath.Join(repoRoot(), "deploy", "examples", "scenarios", "jobset-selector-tainted-flavor.yaml"), "sc-jobset-selector-tainted-flavor"},
	} {
		r := replay(t, c.dump, diagnose.Target{Kind: "JobSet", Namespace: c.ns, Name: "split"})
		if r.Verdict.Code != diagnose.CodeNoMatchingFlavor || r.Verdict.Cause != diagnose.CauseUntoleratedTaint {
			t.Errorf("%s: verdict %s/%s, want NoMatchingFlavor/UntoleratedTaint", c.dump, r.Verdict.Code, r.Verdict.Cause)
		}
		if !strings.Contains(r.Verdict.Headline+r.Verdict.Detail, "pod set workers") {
			t.Errorf("%s: the answer does not name pod set workers: %s %s", c.dump, r.Verdict.Headline, r.Verdict.Detail)
		}
		if !strings.Contains(r.Verdict.Detail, "only its taint spot=true:NoSchedule keeps them out") {
			t.Errorf("%s: the answer does not say that only the taint keeps the workers out: %s", c.dump, r.Verdict.Detail)
		}
	}
}

// One pod set fits, the other does not (scenario jobset-workers-no-flavor:
// the driver tolerates the only flavor's taint, the workers do not): the
// answer should say which pod set is stuck.
func TestFindingNoMatchingFlavorNamesThePodSet(t *testing.T) {
	r := replay(t, filepath.Join(repoRoot(), "deploy", "examples", "scenarios", "jobset-workers-no-flavor.yaml"),
		diagnose.Target{Kind: "JobSet", Namespace: "sc-jobset-workers-no-flavor", Name: "split"})
	if !strings.Contains(r.Verdict.Headline+r.Verdict.Detail, "pod set workers") {
		t.Errorf("the answer does not name pod set workers: %s %s", r.Verdict.Headline, r.Verdict.Detail)
	}
}

// A Workload preempted by another one the caller can read: the answer
// names the preemptor's job, namespace and priority (and its ClusterQueue
// when it is another one, as with fair sharing), never its UID.
func TestFindingPreemptorIsNamed(t *testing.T) {
	for _, c := range []struct {
		scenario, name, want string
	}{
		{"preempted", "low", "It was preempted by Job sc-preempted/high, priority 1000 against yours 100."},
		{"fair-sharing-preempted", "greedy", "It was preempted by Job sc-fair-sharing-preempted/fair of ClusterQueue sc-fair-sharing-preempted-b, priority 0 against yours 0."},
	} {
		ns := "sc-" + c.scenario
		r := replay(t, filepath.Join(repoRoot(), "deploy", "examples", "scenarios", c.scenario+".yaml"), diagnose.Target{Kind: "Job", Namespace: ns, Name: c.name})
		if r.Verdict.Code != diagnose.CodeRequeuing || r.Verdict.Cause != diagnose.CausePreempted || !strings.Contains(r.Verdict.Detail, c.want) {
			t.Errorf("%s: verdict %s/%s %q, want Requeuing/Preempted with %q", c.scenario, r.Verdict.Code, r.Verdict.Cause, r.Verdict.Detail, c.want)
		}
		if strings.Contains(r.Verdict.Headline+r.Verdict.Detail, "UID") {
			t.Errorf("%s: the answer shows a UID: %s %s", c.scenario, r.Verdict.Headline, r.Verdict.Detail)
		}
	}
}

// TestFindingsLive asks the live sandbox, as the scenarios' user, what the
// findings above assert on the recorded dumps, for the scenarios of the
// Kueue configuration the sandbox runs now (make sandbox-scenarios
// SCENARIO=<name> leaves it on that scenario's).
func TestFindingsLive(t *testing.T) {
	sb := sandbox(t)
	grantQuotaViewer(t, sb, "alice")
	current := sandboxConfig(t, sb)
	for _, c := range []struct {
		scenario, target string
		want             []string
	}{
		{"fair-sharing-preempted", "greedy", []string{"It was preempted by Job sc-fair-sharing-preempted/fair of ClusterQueue sc-fair-sharing-preempted-b, priority 0 against yours 0."}},
		{"preempted", "low", []string{"It was preempted by Job sc-preempted/high, priority 1000 against yours 100."}},
		{"pods-ready-timeout", "slow", []string{"was evicted because its pods were not ready in time (PodsReadyTimeout)", "Evictions for this reason so far: 1"}},
		{"jobset-selector-tainted-flavor", "jobset/split", []string{"can take pod set workers of jobset/split", "only its taint spot=true:NoSchedule keeps them out"}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			if cfg := scenarioConfig(t, c.scenario); cfg != current {
				t.Skipf("runs with Kueue configuration %s; the sandbox runs %s now", cfg, current)
			}
			r, raw := diagnoseAs(t, sb, "alice", c.target, "sc-"+c.scenario)
			for _, w := range c.want {
				if !strings.Contains(raw, w) {
					t.Errorf("the live answer does not say %q:\n%s %s", w, r.Verdict.Headline, r.Verdict.Detail)
				}
			}
		})
	}
}

// snapshotOf loads dump files and builds the Snapshot for target, as
// kueuebot diagnose --from-file does.
func snapshotOf(paths []string, target diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	d, err := fetch.LoadFiles(paths)
	if err != nil {
		return nil, err
	}
	return d.Snapshot(target, now)
}
