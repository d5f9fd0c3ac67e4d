package diagnose_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// Scenario dumps are recorded from the real Kueue controller in the
// sandbox (make sandbox-scenarios) next to the expected verdict of each
// scenario; replaying them here keeps the fast tests honest about the
// states the real stack produces.
const (
	scenarioDumps   = "../deploy/examples/scenarios"
	scenarioExpects = "../deploy/sandbox/scenarios"
)

// ScenarioExpect is a scenario's expect.yaml.
type ScenarioExpect struct {
	Target diagnose.Target `json:"target"`
	User   string          `json:"user"`
	VerdictExpect
	// Or lists the other verdicts the real Kueue may leave the scenario
	// in (it races with itself there); the answer must match one.
	Or []VerdictExpect `json:"or"`
}

// VerdictExpect is one verdict a scenario may end in.
type VerdictExpect struct {
	Why   string         `json:"why"`
	Stage diagnose.Stage `json:"stage"`
	Code  diagnose.Code  `json:"code"`
	Cause diagnose.Cause `json:"cause"`
	// Remedies are remedy codes the answer must offer.
	Remedies []string `json:"remedies"`
	// Mentions must each appear in what the user reads of the answer
	// (headline, detail, remedies, findings): the blocking object's name,
	// the limit.
	Mentions []string `json:"mentions"`
	// AdminMentions must appear too when every object is read (as in the
	// dump), not only what the scenario's user may read.
	AdminMentions []string `json:"adminMentions"`
}

// matching returns the verdict of e that r has (the main one, or an
// alternative), and false when r matches none.
func (e ScenarioExpect) matching(r *diagnose.Report) (VerdictExpect, bool) {
	for _, v := range append([]VerdictExpect{e.VerdictExpect}, e.Or...) {
		if r.Verdict.Code == v.Code && r.Verdict.Cause == v.Cause && r.Verdict.Stage == v.Stage {
			return v, true
		}
	}
	return e.VerdictExpect, false
}

// dumpTime is when a dump was recorded (its first line, written by the
// sandbox runner), or fallback for a dump without that line.
func dumpTime(path string, fallback time.Time) time.Time {
	data, err := os.ReadFile(path)
	if err != nil {
		return fallback
	}
	line, _, _ := strings.Cut(string(data), "\n")
	rest, ok := strings.CutPrefix(line, "# Recorded from the sandbox at ")
	if !ok {
		return fallback
	}
	stamp, _, _ := strings.Cut(rest, " ")
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return fallback
	}
	return t
}

func readExpect(t testing.TB, name string) ScenarioExpect {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenarioExpects, name, "expect.yaml"))
	if err != nil {
		t.Fatalf("scenario %s has a dump but no expect.yaml: %v", name, err)
	}
	var e ScenarioExpect
	if err := yaml.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s/expect.yaml: %v", name, err)
	}
	return e
}

func TestScenarioDumps(t *testing.T) {
	dumps, _ := filepath.Glob(filepath.Join(scenarioDumps, "*.yaml"))
	if len(dumps) == 0 {
		t.Fatal("no scenario dumps: run make sandbox-up sandbox-scenarios")
	}
	for _, dump := range dumps {
		name := strings.TrimSuffix(filepath.Base(dump), ".yaml")
		t.Run(name, func(t *testing.T) {
			e := readExpect(t, name)
			s, err := snapshotOf([]string{dump}, e.Target, dumpTime(dump, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)))
			if err != nil {
				t.Fatal(err)
			}
			r := diagnose.Analyze(s)
			v, ok := e.matching(&r)
			if !ok {
				t.Errorf("verdict %s/%s/%s, want %s/%s/%s (or one of %d alternatives)\nheadline: %s\ndetail: %s",
					r.Verdict.Stage, r.Verdict.Code, r.Verdict.Cause, e.Stage, e.Code, e.Cause, len(e.Or), r.Verdict.Headline, r.Verdict.Detail)
			}
			for _, want := range v.Remedies {
				if !slices.ContainsFunc(r.Remedies, func(m diagnose.Remedy) bool { return m.Code == want }) {
					t.Errorf("no %s remedy in %+v", want, r.Remedies)
				}
			}
			checkReport(t, &r)
			checkMentions(t, &r, append(slices.Clone(v.Mentions), v.AdminMentions...))
		})
	}
}

// TestEveryScenarioHasADump: a scenario without a recorded dump is stale.
func TestEveryScenarioHasADump(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(scenarioExpects, "*", "expect.yaml"))
	for _, d := range dirs {
		name := filepath.Base(filepath.Dir(d))
		if _, err := os.Stat(filepath.Join(scenarioDumps, name+".yaml")); err != nil {
			t.Errorf("scenario %s has no dump in %s: run make sandbox-scenarios", name, scenarioDumps)
		}
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
