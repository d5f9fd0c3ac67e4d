package e2e

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
)

// These tests read the scenario definitions only (no sandbox): the live
// runs are TestScenariosLive, TestFreshDumps and the runner's own check.

// TestEveryCodeHasALiveScenario: every verdict code is the expected
// verdict of at least one scenario, and every expectation is a valid
// stage/code/cause of the contract.
func TestEveryCodeHasALiveScenario(t *testing.T) {
	seen := map[diagnose.Code]bool{}
	for name, e := range expectations(t) {
		seen[diagnose.Code(e.Code)] = true
		for _, v := range e.verdicts() {
			code := diagnose.Code(v.Code)
			if got := diagnose.StageOf(code); got == "" || string(got) != v.Stage {
				t.Errorf("%s: stage %q for code %s, the contract says %q", name, v.Stage, v.Code, got)
			}
			if !slices.Contains(diagnose.CausesOf(code), diagnose.Cause(v.Cause)) {
				t.Errorf("%s: cause %q is not one of %s's causes %v", name, v.Cause, v.Code, diagnose.CausesOf(code))
			}
		}
	}
	for _, c := range diagnose.AllCodes() {
		if !seen[c] {
			t.Errorf("verdict code %s has no scenario", c)
		}
	}
}

// scenarioConfig is the Kueue configuration a scenario runs with
// (scenario.yaml's config; "default" without one).
func scenarioConfig(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "sandbox", "scenarios", name, "scenario.yaml"))
	if os.IsNotExist(err) {
		return "default"
	}
	if err != nil {
		t.Fatal(err)
	}
	var sf struct {
		Config string `json:"config"`
	}
	if err := yaml.Unmarshal(b, &sf); err != nil {
		t.Fatalf("%s/scenario.yaml: %v", name, err)
	}
	if sf.Config == "" {
		return "default"
	}
	return sf.Config
}

// sandboxConfig is the Kueue configuration the sandbox runs now
// (SANDBOX_KUEUE_CONFIG in its env file).
func sandboxConfig(t *testing.T, sb string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(sb, "env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "SANDBOX_KUEUE_CONFIG="); ok {
			return v
		}
	}
	return "default"
}

// TestEveryRemedyCommandIsApplied: every remedy code that ships a command
// which changes the cluster (kubectl patch, label, ...) is applied against
// the real Kueue by a scenario's remedy step (the runner runs it as the
// identity the remedy names). The commands are those of the diagnosis
// goldens and of the scenario dumps replayed here; read-only commands
// (get, describe, logs) are not remedies of the cluster's state.
func TestEveryRemedyCommandIsApplied(t *testing.T) {
	applied := map[string][]string{}
	dirs, err := filepath.Glob(filepath.Join(repoRoot(), "deploy", "sandbox", "scenarios", "*", "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sf struct {
			Steps []struct {
				Remedy *struct {
					Code string `json:"code"`
				} `json:"remedy"`
			} `json:"steps"`
		}
		if err := yaml.Unmarshal(b, &sf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range sf.Steps {
			if s.Remedy != nil {
				applied[s.Remedy.Code] = append(applied[s.Remedy.Code], filepath.Base(filepath.Dir(f)))
			}
		}
	}

	shipped := map[string]string{} // code -> one command that changes the cluster
	add := func(where string, rems []diagnose.Remedy) {
		for _, m := range rems {
			if changesCluster(m.Command) {
				if _, ok := shipped[m.Code]; !ok {
					shipped[m.Code] = where + ": " + m.Command
				}
			}
		}
	}
	goldens, _ := filepath.Glob(filepath.Join(repoRoot(), "diagnose", "testdata", "golden", "*.json"))
	if len(goldens) == 0 {
		t.Fatal("no diagnosis goldens")
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var r diagnose.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		add(filepath.Base(g), r.Remedies)
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for name, e := range expectations(t) {
		s, err := snapshotOf([]string{filepath.Join(repoRoot(), "deploy", "examples", "scenarios", name+".yaml")}, e.Target, now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		add(name, diagnose.Analyze(s).Remedies)
	}
	if len(shipped) == 0 {
		t.Fatal("no remedy commands found: the check would pass vacuously")
	}
	t.Logf("shipped: %v", slices.Sorted(maps.Keys(shipped)))
	for code, example := range shipped {
		if len(applied[code]) == 0 {
			t.Errorf("remedy %s ships a command that changes the cluster, and no scenario applies it (add a remedy step): %s", code, example)
		}
	}
}

// changesCluster reports whether a remedy's command writes to the cluster:
// a kubectl verb other than the read-only ones.
func changesCluster(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "kubectl" {
		return cmd != ""
	}
	for i := 1; i < len(f); i++ {
		w := f[i]
		if w == "-n" || w == "--namespace" || w == "--context" || w == "--kubeconfig" {
			i++ // the flag's value
			continue
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		switch w {
		case "get", "describe", "logs", "auth", "explain", "top", "events":
			return false
		}
		return true
	}
	return true
}
