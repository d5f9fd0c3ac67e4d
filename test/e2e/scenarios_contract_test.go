package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// These tests read the scenario definitions only (no sandbox): the live
// runs are TestScenariosLive, TestFreshDumps and the runner's own check.

// TestEveryKindHasALiveScenario: every kind kueuebot diagnoses (fetch's
// registry) is the target of a scenario run against the real Kueue.
func TestEveryKindHasALiveScenario(t *testing.T) {
	byKind := map[string][]string{}
	for name, e := range expectations(t) {
		byKind[e.Target.Kind] = append(byKind[e.Target.Kind], name)
	}
	for _, k := range fetch.Kinds() {
		if len(byKind[k.Kind]) == 0 {
			t.Errorf("kind %s has no scenario in deploy/sandbox/scenarios (expect.yaml target.kind: %s)", k.Kind, k.Kind)
		}
	}
	for kind, names := range byKind {
		if _, ok := fetch.LookupKind(kind); !ok {
			t.Errorf("scenarios %v target kind %q, which kueuebot does not know", names, kind)
		}
	}
}

// TestEveryCodeHasALiveScenario: every verdict code is the expected
// verdict of at least one scenario, and every expectation is a valid
// stage/code/cause of the contract.
func TestEveryCodeHasALiveScenario(t *testing.T) {
	seen := map[diagnose.Code]bool{}
	for name, e := range expectations(t) {
		code := diagnose.Code(e.Code)
		seen[code] = true
		if got := diagnose.StageOf(code); got == "" || string(got) != e.Stage {
			t.Errorf("%s: stage %q for code %s, the contract says %q", name, e.Stage, e.Code, got)
		}
		if !slices.Contains(diagnose.CausesOf(code), diagnose.Cause(e.Cause)) {
			t.Errorf("%s: cause %q is not one of %s's causes %v", name, e.Cause, e.Code, diagnose.CausesOf(code))
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
