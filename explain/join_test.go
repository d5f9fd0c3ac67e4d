package explain

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// recordedTime matches the RFC 3339 times the API server writes
// (creationTimestamp, lastTransitionTime, ...).
var recordedTime = regexp.MustCompile(`"?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"?`)

// dumpNow is the clock the join test reads a dump at: an hour after the
// newest time recorded in it, so that its admitted workloads are past the
// default stuck threshold (digest.DefaultStuckAfter) whenever the dump was
// taken: a dump CI records minutes before the test is read at its own time,
// not at a date fixed when the committed dumps were recorded.
func dumpNow(t *testing.T, path string) time.Time {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var newest time.Time
	for _, m := range recordedTime.FindAllSubmatch(data, -1) {
		if at, err := time.Parse(time.RFC3339, string(m[1])); err == nil && at.After(newest) {
			newest = at
		}
	}
	if newest.IsZero() {
		t.Fatalf("%s: no recorded time in the dump", path)
	}
	return newest.Add(time.Hour)
}

// scenarioExpect is the part of a sandbox scenario's expect.yaml the join
// test reads: the job the scenario's user asks about and its verdict.
type scenarioExpect struct {
	Target diagnose.Target `json:"target"`
	User   string          `json:"user"`
	Stage  diagnose.Stage  `json:"stage"`
	Code   diagnose.Code   `json:"code"`
	Cause  diagnose.Cause  `json:"cause"`
	// Or are the other verdicts the real Kueue may leave the scenario in.
	Or []struct {
		Code diagnose.Code `json:"code"`
	} `json:"or"`
}

// allows reports whether the scenario may end in verdict code c.
func (e scenarioExpect) allows(c diagnose.Code) bool {
	if c == e.Code {
		return true
	}
	for _, v := range e.Or {
		if v.Code == c {
			return true
		}
	}
	return false
}

// scenarioDumps returns every recorded scenario dump: the ones just taken
// from the real stack (KUEUEBOT_FRESH_DUMPS, as CI sets it) when set, else
// the committed ones.
func scenarioDumps(t *testing.T) []string {
	t.Helper()
	dir := "../deploy/examples/scenarios"
	if fresh := os.Getenv("KUEUEBOT_FRESH_DUMPS"); fresh != "" {
		dir = fresh
	}
	dumps, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(dumps) == 0 {
		t.Fatalf("no scenario dumps in %s: %v", dir, err)
	}
	return dumps
}

func readScenarioExpect(t *testing.T, name string) (scenarioExpect, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../deploy/sandbox/scenarios", name, "expect.yaml"))
	if os.IsNotExist(err) {
		return scenarioExpect{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var e scenarioExpect
	if err := yaml.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s/expect.yaml: %v", name, err)
	}
	return e, true
}

// askedAbout reports whether a job with this verdict is one its owner would
// find in a list of their Kueue jobs that are not running: every verdict
// but a job that does not exist, one that does not name a LocalQueue (not
// a Kueue job: lists and digests are of Kueue's jobs), and a job that runs
// or finished.
func askedAbout(r *diagnose.Report) bool {
	switch r.Verdict.Code {
	case diagnose.CodeNotFound, diagnose.CodeNotManagedByKueue:
		return false
	}
	return r.Verdict.Stage != diagnose.StageRunning && r.Verdict.Stage != diagnose.StageFinished
}

func sameJob(a, b diagnose.Target) bool {
	return strings.EqualFold(a.Kind, b.Kind) && a.Namespace == b.Namespace && a.Name == b.Name
}

// TestListsAgreeWithDiagnose holds the one join to its promise over every
// recorded scenario: the job each scenario's user asks about is in
// `/kueue jobs` (Explainer.Jobs) whenever it is not running, with the very
// report `kueuebot diagnose --from-file` gives it alone (Explainer.Explain
// over the same dump), and every other job listed has its own diagnosis
// too; the digest of the scenario's namespace lists it with the same
// verdict, among the pending workloads, or among those stuck after
// admission when it is admitted and its pods do not run. Jobs without a
// Workload (a missing WorkloadPriorityClass, a namespace Kueue does not
// manage) are listed as WorkloadMissing by both.
func TestListsAgreeWithDiagnose(t *testing.T) {
	counts := map[string]int{}
	for _, path := range scenarioDumps(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		e, ok := readScenarioExpect(t, name)
		if !ok {
			continue // a dump of no scenario (TestEveryScenarioHasADump)
		}
		t.Run(name, func(t *testing.T) {
			dump, err := fetch.LoadFiles([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			joinNow := dumpNow(t, path)
			ex := &Explainer{Reader: &DumpReader{Dump: dump, Unrestricted: true, Now: func() time.Time { return joinNow }}, Now: func() time.Time { return joinNow }}
			ns := e.Target.Namespace
			id := rbac.Identity{User: e.User, Namespaces: []string{ns}}
			// What `kueuebot diagnose KIND/NAME -n NS --from-file DUMP` says.
			own, err := ex.Explain(t.Context(), rbac.Identity{}, Question{Kind: e.Target.Kind, Name: e.Target.Name, Namespace: ns})
			if err != nil {
				t.Fatal(err)
			}
			if !e.allows(own.Report.Verdict.Code) {
				t.Fatalf("diagnose says %s, the scenario %s: TestScenarioDumps says why", own.Report.Verdict.Code, e.Code)
			}

			jobs, err := ex.Jobs(t.Context(), id, JobsQuery{})
			if err != nil {
				t.Fatal(err)
			}
			listed := -1
			for i := range jobs.Jobs {
				r := &jobs.Jobs[i]
				tgt := diagnose.Target{Kind: r.Target.Kind, Namespace: r.Target.Namespace, Name: r.Target.Name}
				if sameJob(tgt, e.Target) {
					listed = i
				}
				// Every job listed has the report of its own diagnosis,
				// and the estimate a question about it alone gives.
				s, err := dump.Snapshot(tgt, joinNow)
				if err != nil {
					t.Fatal(err)
				}
				alone, err := ex.Explain(t.Context(), rbac.Identity{}, Question{Kind: tgt.Kind, Name: tgt.Name, Namespace: tgt.Namespace})
				if err != nil {
					t.Fatal(err)
				}
				want := diagnose.Analyze(s)
				want.Estimate = alone.Report.Estimate
				if diff := cmp.Diff(alone.Report, want, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%v: its own diagnosis is not Analyze's (-alone +analyze):\n%s", r.Target, diff)
				}
				if diff := cmp.Diff(want, *r, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%v: listed with a report that is not its own diagnosis (-own +listed):\n%s", r.Target, diff)
				}
				if !askedAbout(r) {
					t.Errorf("%v listed though it is %s", r.Target, r.Verdict.Code)
				}
			}
			switch {
			case askedAbout(&own.Report) && listed < 0:
				t.Errorf("%v (%s) is not in /kueue jobs; listed: %v", e.Target, e.Code, targets(jobs.Jobs))
			case askedAbout(&own.Report):
				if diff := cmp.Diff(own.Report, jobs.Jobs[listed], cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("/kueue jobs and diagnose disagree on %v (-diagnose +jobs):\n%s", e.Target, diff)
				}
				counts["listed"]++
			case listed >= 0:
				t.Errorf("%v (%s) is listed", e.Target, e.Code)
			}

			res, err := ex.Digest(t.Context(), id, DigestQuery{Name: name, Scope: digest.Scope{Namespaces: []string{ns}}})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Digest
			var inDigest []*digest.Item
			for _, g := range d.Groups {
				for _, it := range g.Workloads {
					if sameJob(diagnose.Target{Kind: it.Kind, Namespace: it.Namespace, Name: it.Name}, e.Target) {
						inDigest = append(inDigest, it)
					}
				}
			}
			var stuck []*digest.Item
			for _, it := range d.Stuck {
				if sameJob(diagnose.Target{Kind: it.Kind, Namespace: it.Namespace, Name: it.Name}, e.Target) {
					stuck = append(stuck, it)
				}
			}
			v := own.Report.Verdict
			switch {
			case !askedAbout(&own.Report):
				if len(inDigest)+len(stuck) > 0 {
					t.Errorf("%v (%s) is in the digest", e.Target, v.Code)
				}
			case digest.Stuck(v.Code):
				if len(stuck) != 1 || len(inDigest) != 0 {
					t.Fatalf("%v (%s) is %d times stuck after admission, %d times pending; want once stuck", e.Target, v.Code, len(stuck), len(inDigest))
				}
				it := stuck[0]
				if it.Code != v.Code || it.Cause != v.Cause || it.Headline != v.Headline || len(it.Who) == 0 || it.Wait <= d.StuckAfter {
					t.Errorf("stuck as %s/%s %q (who %v, admitted %s ago); diagnose says %s/%s %q", it.Code, it.Cause, it.Headline, it.Who, it.Wait, v.Code, v.Cause, v.Headline)
				}
				counts["stuck"]++
			default:
				if len(inDigest) != 1 || len(stuck) != 0 {
					t.Fatalf("%v (%s) is %d times pending, %d times stuck; want once pending", e.Target, v.Code, len(inDigest), len(stuck))
				}
				it := inDigest[0]
				if it.Code != v.Code || it.Cause != v.Cause || it.Headline != v.Headline {
					t.Errorf("digest has %s/%s %q; diagnose says %s/%s %q", it.Code, it.Cause, it.Headline, v.Code, v.Cause, v.Headline)
				}
				counts["pending"]++
			}
			if v.Code == diagnose.CodeWorkloadMissing {
				counts["WorkloadMissing"]++
			}
		})
	}
	t.Logf("scenario jobs listed: %v", counts)
	if len(scenarioDumps(t)) >= 50 && (counts["stuck"] < 3 || counts["WorkloadMissing"] < 2 || counts["pending"] < 20) {
		t.Errorf("the scenarios should hold stuck, WorkloadMissing and many pending jobs: %v", counts)
	}
}

func targets(rs []diagnose.Report) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Target.Kind+"/"+r.Target.Name+"="+string(r.Verdict.Code))
	}
	return slices.Clip(out)
}

// TestDigestListsAStuckEviction: a Workload Kueue cannot finish evicting
// (Admitted and Evicted both True, the MultiKueue job's copied status
// still counting a pod: Requeuing/StaleJobStatus, one end of the
// multikueue-evicted scenario) is pending in the digest, with the verdict
// diagnose gives it, not dropped as an admitted workload that is not stuck.
func TestDigestListsAStuckEviction(t *testing.T) {
	data, err := os.ReadFile("../diagnose/testdata/cases/requeuing-multikueue-stale-status.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, objects, ok := strings.Cut(string(data), "-- objects.yaml --\n")
	if !ok {
		t.Fatal("no objects in the fixture")
	}
	path := filepath.Join(t.TempDir(), "multikueue-evicted.yaml")
	if err := os.WriteFile(path, []byte(objects), 0o644); err != nil {
		t.Fatal(err)
	}
	dump, err := fetch.LoadFiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	now := dumpNow(t, path)
	ex := &Explainer{Reader: &DumpReader{Dump: dump, Unrestricted: true, Now: func() time.Time { return now }}, Now: func() time.Time { return now }}
	ns := "sc-multikueue-evicted"
	res, err := ex.Digest(t.Context(), rbac.Identity{User: "alice", Namespaces: []string{ns}}, DigestQuery{Name: "team", Scope: digest.Scope{Namespaces: []string{ns}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []*digest.Item
	for _, g := range res.Digest.Groups {
		for _, it := range g.Workloads {
			if it.Name == "train" && it.Namespace == ns {
				got = append(got, it)
			}
		}
	}
	if len(got) != 1 || got[0].Code != diagnose.CodeRequeuing || got[0].Cause != diagnose.CauseStaleJobStatus {
		t.Fatalf("the digest lists train %d times (%+v), want once as Requeuing/StaleJobStatus", len(got), got)
	}
	if len(res.Digest.Stuck) != 0 {
		t.Errorf("stuck after admission: %+v, want none (it is leaving admission)", res.Digest.Stuck)
	}
	// Counted once: pending and holding quota, not also admitted.
	if tot := res.Digest.Totals; tot.Pending != 1 || tot.Reserved != 1 || tot.Admitted != 0 {
		t.Errorf("totals pending %d, reserved %d, admitted %d; want 1, 1, 0", tot.Pending, tot.Reserved, tot.Admitted)
	}
}
