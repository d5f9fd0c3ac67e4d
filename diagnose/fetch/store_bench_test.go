package fetch

import (
	"runtime"
	"testing"

	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// BenchmarkAddObjects adds the objects of a generated cluster (50,000
// Workloads in 1,000 namespaces and 200 ClusterQueues) to an empty store:
// what copying, slimming, sharing and indexing cost per object (ns/object,
// cpu-ns/object), and the live heap the filled store holds (store-MiB,
// measured with the generated objects still alive, so it counts only what
// the store allocated).
func BenchmarkAddObjects(b *testing.B) {
	c := gencluster.Generate(gencluster.Spec{Workloads: 50000, Namespaces: 1000, ClusterQueues: 200, CohortSize: 4, Now: testNow})
	objs := c.Objects()
	var st *Store
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		st = NewStore()
		if err := st.AddObjects(objs...); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(objs)), "ns/object")
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N)/float64(len(objs)), "cpu-ns/object")
	if got := len(st.Workloads()); got != len(c.Workloads) {
		b.Fatalf("%d Workloads stored, want %d", got, len(c.Workloads))
	}
	var ms runtime.MemStats
	st = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	without := ms.HeapAlloc
	st = NewStore()
	if err := st.AddObjects(objs...); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc-without)/(1<<20), "store-MiB")
	runtime.KeepAlive(st)
	runtime.KeepAlive(objs)
}
