package explain

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

var benchNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// BenchmarkBuildDigest computes a digest over a filled store of generated
// Workloads (5k, 20k, 50k in 1,000 namespaces and 200 ClusterQueues, a mix
// of states): every pending one classified. ns/workload shows the cost is
// linear; store-MiB is the filled store's live heap; peak-MiB the heap in
// use at its highest while digests are computed; B/op what one digest
// allocates. The "+jobs" case also stores each Workload's batch Job, as a
// digest's LISTs do.
func BenchmarkBuildDigest(b *testing.B) {
	for _, tc := range []struct {
		n    int
		jobs bool
	}{{5000, false}, {20000, false}, {50000, false}, {50000, true}} {
		n := tc.n
		name := fmt.Sprint(n)
		if tc.jobs {
			name += "+jobs"
		}
		b.Run(name, func(b *testing.B) {
			st := fetch.NewStore()
			func() {
				c := gencluster.Generate(gencluster.Spec{Workloads: n, Namespaces: 1000, ClusterQueues: 200, CohortSize: 4, Jobs: tc.jobs, Now: benchNow})
				if err := st.AddObjects(c.Objects()...); err != nil {
					b.Fatal(err)
				}
			}()
			base := heapInUse()
			peak := base
			done := make(chan struct{})
			sampled := make(chan uint64)
			go func() {
				p := uint64(0)
				for {
					select {
					case <-done:
						sampled <- p
						return
					case <-time.After(5 * time.Millisecond):
						var ms runtime.MemStats
						runtime.ReadMemStats(&ms)
						p = max(p, ms.HeapInuse)
					}
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			// Only the last digest's figures are kept, as the runner keeps
			// them: no digest stays alive while the next is built.
			var pending, groups int
			for b.Loop() {
				d, err := BuildDigest(&Listing{Store: st, All: true}, DigestQuery{Name: "bench"}, benchNow)
				if err != nil {
					b.Fatal(err)
				}
				pending, groups = d.Totals.Pending, len(d.Groups)
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			close(done)
			peak = max(peak, <-sampled)
			if pending == 0 || groups < 3 {
				b.Fatalf("digest of %d workloads: %d pending in %d groups", n, pending, groups)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/workload")
			b.ReportMetric(float64(base)/(1<<20), "store-MiB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			runtime.KeepAlive(st)
		})
	}
}

// cpuTime is the process's CPU time so far (user and system, all
// threads): a busy machine inflates it far less than wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
