package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/internal/gencluster"
	"github.com/kueuebot/kueuebot/rbac"
)

// BenchmarkJobs lists one user's jobs that are not running (`/kueue
// jobs`, the App Home) over a generated cluster of n Workloads with their
// batch Jobs in 40 namespaces, all of which the user may read: the store
// is filled once (a dump), so the figure is the join's classification of
// every subject. jobs/op is how many are listed.
func BenchmarkJobs(b *testing.B) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := gencluster.Generate(gencluster.Spec{Workloads: n, Namespaces: 40, ClusterQueues: 12, CohortSize: 4, Jobs: true, Now: now})
			path := filepath.Join(b.TempDir(), "cluster.json")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.WriteJSONList(f); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			dump, err := fetch.LoadFiles([]string{path})
			if err != nil {
				b.Fatal(err)
			}
			var namespaces []string
			for i := range 40 {
				namespaces = append(namespaces, gencluster.Namespace(i))
			}
			ex := &Explainer{Reader: &DumpReader{Dump: dump, Unrestricted: true}, Now: func() time.Time { return now }}
			id := rbac.Identity{User: "alice", Namespaces: namespaces}
			jobs := 0
			b.ReportAllocs()
			for b.Loop() {
				res, err := ex.Jobs(b.Context(), id, JobsQuery{})
				if err != nil {
					b.Fatal(err)
				}
				jobs = len(res.Jobs)
			}
			if jobs == 0 {
				b.Fatal("no job listed")
			}
			b.ReportMetric(float64(jobs), "jobs/op")
		})
	}
}
