package fetch

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// TestClassifyEqualsEachDiagnosis holds Classify, which shares the store's
// objects and one diagnose.Shared (quota trees, pod requests, parsed
// messages) between all its Snapshots, to the report each subject gets on
// its own: a Snapshot of copies and an Analyze that shares nothing, as
// `kueuebot diagnose` makes. The stores hold every recorded sandbox
// scenario at once (many ClusterQueues, cohorts, limits, admitted and
// pending Workloads sharing trees) and a generated cluster.
func TestClassifyEqualsEachDiagnosis(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	scenarios, err := filepath.Glob("../../deploy/examples/scenarios/*.yaml")
	if err != nil || len(scenarios) < 50 {
		t.Fatalf("scenario dumps: %d, %v", len(scenarios), err)
	}
	fixtures, err := filepath.Glob("testdata/dump/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]func(t *testing.T) *Store{
		"scenarios": func(t *testing.T) *Store {
			st := NewStore()
			for _, f := range scenarios {
				// One store per file would share nothing: load them all,
				// the later file's copy of a cluster-scoped object wins.
				if err := st.AddFiles(f); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
			return st
		},
		"fixtures": func(t *testing.T) *Store {
			st := NewStore()
			if err := st.AddFiles(fixtures...); err != nil {
				t.Fatal(err)
			}
			return st
		},
		"generated": func(t *testing.T) *Store {
			st := NewStore()
			c := gencluster.Generate(gencluster.Spec{Workloads: 3000, Namespaces: 40, ClusterQueues: 12, CohortSize: 4, Jobs: true, Now: now})
			if err := st.AddObjects(c.Objects()...); err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	for name, fill := range stores {
		t.Run(name, func(t *testing.T) {
			st := fill(t)
			subjects := st.Subjects()
			if len(subjects) == 0 {
				t.Fatal("no subjects")
			}
			got := make([]diagnose.Report, len(subjects))
			if err := st.Classify(subjects, now, ClassifyOptions{}, func(i int, r *diagnose.Report) { got[i] = *r }); err != nil {
				t.Fatal(err)
			}
			brief := make([]diagnose.Report, len(subjects))
			if err := st.Classify(subjects, now, ClassifyOptions{Brief: true}, func(i int, r *diagnose.Report) { brief[i] = *r }); err != nil {
				t.Fatal(err)
			}
			codes := map[diagnose.Code]int{}
			for i, sub := range subjects {
				snap, err := st.Snapshot(sub.Target, now)
				if err != nil {
					t.Fatalf("%v: %v", sub.Target, err)
				}
				want := diagnose.Analyze(snap)
				codes[want.Verdict.Code]++
				if diff := cmp.Diff(want, got[i], cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%v: Classify differs from its own diagnosis (-own +classified):\n%s", sub.Target, diff)
				}
				// Brief: the same but for what it leaves out.
				want.Quota, want.Findings, want.Evidence = nil, nil, nil
				if diff := cmp.Diff(want, brief[i], cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%v: a brief report differs from its own diagnosis (-own +brief):\n%s", sub.Target, diff)
				}
			}
			if len(codes) < 3 {
				t.Errorf("only %d verdict codes over %d subjects: %v", len(codes), len(subjects), codes)
			}
			t.Logf("%d subjects, %d verdict codes", len(subjects), len(codes))
		})
	}
}
