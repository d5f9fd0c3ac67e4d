package diagnose_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	goldenfile "github.com/kueuebot/kueuebot/internal/golden"
)

// caseSpec is the case.yaml section of a fixture.
type caseSpec struct {
	Target diagnose.Target `json:"target"`
	Now    time.Time       `json:"now"`
	Want   struct {
		Code  diagnose.Code  `json:"code"`
		Cause diagnose.Cause `json:"cause"`
		// Mentions must each appear in the verdict's headline, detail,
		// remedies or findings: what the answer has to say, e.g. which
		// pod set keeps a multi-pod-set job out.
		Mentions []string `json:"mentions"`
	} `json:"want"`
	// Forbid simulates RBAC: these kinds are dropped from the snapshot and
	// recorded as Forbidden gaps.
	Forbid []string `json:"forbid"`
	// Position and QueueAhead stand in for Kueue's visibility API.
	Position   *diagnose.Position        `json:"position"`
	QueueAhead []diagnose.QueuedWorkload `json:"queueAhead"`
	// NoVisibility drops the queue positions, as when Kueue's visibility
	// API is not served.
	NoVisibility bool `json:"noVisibility"`
}

// loadCase reads a txtar fixture and builds its Snapshot through the same
// loader `kueuebot diagnose --from-file` uses.
func loadCase(t testing.TB, path string) (caseSpec, *diagnose.Snapshot) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spec caseSpec
	dir := t.TempDir()
	var objects string
	for _, f := range ar.Files {
		switch f.Name {
		case "case.yaml":
			if err := yaml.UnmarshalStrict(f.Data, &spec); err != nil {
				t.Fatalf("%s: case.yaml: %v", path, err)
			}
		case "objects.yaml":
			objects = filepath.Join(dir, "objects.yaml")
			if err := os.WriteFile(objects, f.Data, 0o600); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: unknown section %q", path, f.Name)
		}
	}
	s, err := snapshotOf([]string{objects}, spec.Target, spec.Now)
	if err != nil {
		t.Fatalf("%s: load: %v", path, err)
	}
	for _, kind := range spec.Forbid {
		forbid(s, kind)
	}
	if spec.Position != nil {
		s.Position = spec.Position
	}
	if spec.QueueAhead != nil {
		s.QueueAhead = spec.QueueAhead
	}
	if spec.NoVisibility {
		s.Position, s.QueueAhead = nil, nil
		s.Gaps = append(s.Gaps, diagnose.Gap{Kind: "PendingWorkloads", Name: string(s.Workload.Spec.QueueName), Reason: diagnose.GapUnavailable})
	}
	return spec, s
}

func forbid(s *diagnose.Snapshot, kind string) {
	name := ""
	switch kind {
	case "ClusterQueue":
		if s.ClusterQueue != nil {
			name = s.ClusterQueue.Name
		}
		s.ClusterQueue, s.CohortClusterQueues, s.Cohorts = nil, nil, nil
	case "ResourceFlavor":
		s.ResourceFlavors = nil
	case "Namespace":
		s.Namespace = nil
		name = s.Target.Namespace
	case "LocalQueue":
		if s.LocalQueue != nil {
			name = s.LocalQueue.Name
		}
		s.LocalQueue, s.NamespaceLocalQueues = nil, nil
	default:
		panic("forbid: unsupported kind " + kind)
	}
	s.Gaps = append(s.Gaps, diagnose.Gap{Kind: kind, Name: name, Reason: diagnose.GapForbidden})
}

// TestCases runs every fixture: the verdict must be the expected one, the
// text and JSON renderings must match the golden files (go test -update).
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			spec, s := loadCase(t, path)
			r := diagnose.Analyze(s)
			got := struct {
				Code  diagnose.Code
				Cause diagnose.Cause
			}{r.Verdict.Code, r.Verdict.Cause}
			want := struct {
				Code  diagnose.Code
				Cause diagnose.Cause
			}{spec.Want.Code, spec.Want.Cause}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s\nheadline: %s\ndetail: %s", diff, r.Verdict.Headline, r.Verdict.Detail)
			}
			checkReport(t, &r)
			checkMentions(t, &r, spec.Want.Mentions)
			var js bytes.Buffer
			if err := render.WriteJSON(&js, &r); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", name+".json"), js.Bytes())
			golden(t, filepath.Join("testdata", "golden", name+".txt"), []byte(render.TextString(&r)))
		})
	}
}

// checkReport asserts the invariants every report keeps.
func checkReport(t *testing.T, r *diagnose.Report) {
	t.Helper()
	if r.Verdict.Stage != diagnose.StageOf(r.Verdict.Code) {
		t.Errorf("stage %q does not belong to code %q", r.Verdict.Stage, r.Verdict.Code)
	}
	valid := false
	for _, c := range diagnose.CausesOf(r.Verdict.Code) {
		if c == r.Verdict.Cause {
			valid = true
		}
	}
	if !valid {
		t.Errorf("cause %q is not in the contract of code %q", r.Verdict.Cause, r.Verdict.Code)
	}
	if r.Verdict.Headline == "" {
		t.Error("empty headline")
	}
	if r.Verdict.Code != diagnose.CodeRunning && r.Verdict.Code != diagnose.CodeFinished && len(r.Remedies) == 0 {
		t.Error("a job that does not run must get at least one remedy")
	}
	for _, m := range r.Remedies {
		if m.Summary == "" || (m.Who != diagnose.WhoYou && m.Who != diagnose.WhoPlatform) {
			t.Errorf("remedy %+v lacks a summary or who", m)
		}
	}
}

// checkMentions asserts that each of mentions appears in what the user
// reads of the answer.
func checkMentions(t *testing.T, r *diagnose.Report, mentions []string) {
	t.Helper()
	text := []string{r.Verdict.Headline, r.Verdict.Detail}
	for _, m := range r.Remedies {
		text = append(text, m.Summary)
	}
	for _, f := range r.Findings {
		text = append(text, f.Message)
	}
	all := strings.Join(text, "\n")
	for _, m := range mentions {
		if !strings.Contains(all, m) {
			t.Errorf("the answer does not say %q:\n%s", m, all)
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got)
}

// TestEveryCodeAndCauseHasACase keeps the fixture set complete: every code
// and every cause of the contract has at least one fixture, and every code
// at least one whose answer must name what blocks (want.mentions).
func TestEveryCodeAndCauseHasACase(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	seen := map[string]bool{}
	named := map[diagnose.Code]bool{}
	for _, path := range files {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name != "case.yaml" {
				continue
			}
			var spec caseSpec
			if err := yaml.Unmarshal(f.Data, &spec); err != nil {
				t.Fatal(err)
			}
			seen[string(spec.Want.Code)+"/"+string(spec.Want.Cause)] = true
			if len(spec.Want.Mentions) > 0 {
				named[spec.Want.Code] = true
			}
		}
	}
	for _, code := range diagnose.AllCodes() {
		if !named[code] {
			t.Errorf("no fixture of %s lists the words its answer must contain (want.mentions)", code)
		}
		for _, cause := range diagnose.CausesOf(code) {
			if !seen[string(code)+"/"+string(cause)] {
				t.Errorf("no fixture for %s/%s", code, cause)
			}
		}
	}
}

// TestJSONContract pins the JSON field names others script against.
func TestJSONContract(t *testing.T) {
	_, s := loadCase(t, "testdata/cases/exceeds-max-quota.txtar")
	r := diagnose.Analyze(s)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "target", "queue", "quota", "findings", "remedies", "gaps", "evidence"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	row := m["quota"].([]any)[0].(map[string]any)
	for _, k := range []string{"podSet", "flavor", "resource", "requested", "nominal", "borrowingLimit", "lendingLimit", "reserved", "available", "maxCapacity", "fitsNow", "fitsEver", "shortBy"} {
		if _, ok := row[k]; !ok {
			t.Errorf("quota row lacks %q", k)
		}
	}
	if got := row["requested"]; got != "3" {
		t.Errorf("requested = %v, want the quantity string \"3\"", got)
	}
}

// BenchmarkAnalyze measures the pure diagnosis of one pending job (the
// classic over-quota case, with the quota table and remedies).
func BenchmarkAnalyze(b *testing.B) {
	_, s := loadCase(b, "testdata/cases/borrowing-limited.txtar")
	b.ReportAllocs()
	for b.Loop() {
		_ = diagnose.Analyze(s)
	}
}
