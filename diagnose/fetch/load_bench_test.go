package fetch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// BenchmarkLoadFiles loads a generated dump (1,000 and 10,000 Workloads in
// 1,000 namespaces and 200 ClusterQueues) as `kueuebot diagnose
// --from-file` does, then diagnoses one Workload of it: as a YAML
// `kind: List` (what `kubectl get -o yaml` writes), as multi-document YAML,
// and as a JSON `kind: List`. The dumps are generated, never committed.
// ns/workload shows that the cost is linear; cpu-ns/op is the CPU time
// (user+system, every thread), which a busy machine does not inflate the
// way it inflates ns/op.
func BenchmarkLoadFiles(b *testing.B) {
	formats := []struct {
		name, ext string
		write     func(*gencluster.Cluster, *bytes.Buffer) error
	}{
		{"yaml-list", "yaml", func(c *gencluster.Cluster, w *bytes.Buffer) error { return c.WriteYAMLList(w) }},
		{"yaml-docs", "yaml", func(c *gencluster.Cluster, w *bytes.Buffer) error { return c.WriteYAMLDocuments(w) }},
		{"json-list", "json", func(c *gencluster.Cluster, w *bytes.Buffer) error { return c.WriteJSONList(w) }},
	}
	for _, n := range []int{1000, 10000} {
		for _, f := range formats {
			b.Run(fmt.Sprintf("%s/%d", f.name, n), func(b *testing.B) {
				c := gencluster.Generate(gencluster.Spec{Workloads: n, Namespaces: 1000, ClusterQueues: 200, CohortSize: 4, Now: testNow})
				target := diagnose.Target{Kind: KindWorkload, Namespace: c.Workloads[0].Namespace, Name: c.Workloads[0].Name}
				var buf bytes.Buffer
				if err := f.write(c, &buf); err != nil {
					b.Fatal(err)
				}
				path := filepath.Join(b.TempDir(), "dump."+f.ext)
				if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(buf.Len()))
				b.ReportAllocs()
				cpu0 := cpuTime(b)
				for b.Loop() {
					d, err := LoadFiles([]string{path})
					if err != nil {
						b.Fatal(err)
					}
					s, err := d.Snapshot(target, testNow)
					if err != nil {
						b.Fatal(err)
					}
					if r := diagnose.Analyze(s); r.Verdict.Code == "" {
						b.Fatal("no verdict")
					}
				}
				b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/workload")
			})
		}
	}
}

// cpuTime is the process's CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
