package trace

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kueuebot/kueuebot/diagnose"
)

// traceRecord is what a run of TestEstimateTrace read, sample by sample,
// and the real admissions: TestEstimateRecorded replays the forecast on it
// with no sandbox, so that a change to the model is measured on several
// traces in seconds before it is measured on the real Kueue again.
type traceRecord struct {
	Seed    uint64           `json:"seed"`
	Begin   time.Time        `json:"begin"`
	Samples []recordedSample `json:"samples"`
	// Admitted and Created are each job's quota reservation and its
	// Workload's creation.
	Admitted map[string]time.Time `json:"admitted"`
	Created  map[string]time.Time `json:"created"`
}

// recordedSample is one digest's reads: the forecast's input, and the
// pending Workloads it estimated with the baseline of each.
type recordedSample struct {
	Now       time.Time                   `json:"now"`
	Objects   diagnose.Objects            `json:"objects"`
	Deadlines map[types.UID]time.Duration `json:"deadlines,omitempty"`
	Pending   []recordedItem              `json:"pending"`
}

// recordedItem is one pending Workload of a sample.
type recordedItem struct {
	Job          string        `json:"job"` // namespace/name
	Workload     string        `json:"workload"`
	ClusterQueue string        `json:"clusterQueue"`
	Code         diagnose.Code `json:"code"`
	Baseline     time.Time     `json:"baseline"`
}

// traceSeed is the trace's seed: KUEUEBOT_TRACE_SEED when set (to measure
// the model on other traces than the one it was built on), else 15.
func traceSeed(t *testing.T) uint64 {
	v := os.Getenv("KUEUEBOT_TRACE_SEED")
	if v == "" {
		return 15
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("KUEUEBOT_TRACE_SEED=%q: %v", v, err)
	}
	return seed
}

// loadAverage is the machine's load averages and core count at the end
// of the trace, as the figures depend on them ("?" where /proc does not
// say).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if err != nil || len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ") + " on " + strconv.Itoa(runtime.NumCPU()) + " cores"
}

// writeRecord writes rec, gzipped JSON, to the file KUEUEBOT_TRACE_RECORD
// names; nothing when it is unset.
func writeRecord(t *testing.T, rec *traceRecord) {
	path := os.Getenv("KUEUEBOT_TRACE_RECORD")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Errorf("trace record: %v", err)
		return
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Errorf("trace record: %v", err)
		}
	}()
	zw := gzip.NewWriter(f)
	if err := json.NewEncoder(zw).Encode(rec); err != nil {
		t.Errorf("trace record: %v", err)
	}
	if err := zw.Close(); err != nil {
		t.Errorf("trace record: %v", err)
	}
}

// writeSummary writes the trace's figures to estimate-trace.txt in
// KUEUEBOT_FRESH_DUMPS (CI's folder of fresh outputs; hack/check.sh shows
// it, since go test shows a passing test's log only with -v).
func writeSummary(t *testing.T, lines []string) {
	dir := os.Getenv("KUEUEBOT_FRESH_DUMPS")
	if dir == "" {
		return
	}
	text := "TestEstimateTrace:\n  " + strings.Join(lines, "\n  ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "estimate-trace.txt"), []byte(text), 0o644); err != nil {
		t.Errorf("trace summary: %v", err)
	}
}

// readRecord reads a record writeRecord wrote.
func readRecord(path string) (*traceRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var rec traceRecord
	if err := json.NewDecoder(zr).Decode(&rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// TestEstimateRecorded replays the forecast, as the code now makes it, on
// the recorded runs of TestEstimateTrace that KUEUEBOT_TRACE_RECORDS names
// (a glob) and logs the figures of each, scored as the trace scores them.
// It measures a change to the model on the traces it was not built on in
// seconds; the sandbox's trace stays the measure that counts. It skips
// when KUEUEBOT_TRACE_RECORDS is unset.
func TestEstimateRecorded(t *testing.T) {
	glob := os.Getenv("KUEUEBOT_TRACE_RECORDS")
	if glob == "" {
		t.Skip("KUEUEBOT_TRACE_RECORDS is not set")
	}
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no trace records match %q: %v", glob, err)
	}
	for _, path := range paths {
		rec, err := readRecord(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var samples []estimateSample
		for _, rs := range rec.Samples {
			fc := diagnose.NewForecast(diagnose.ForecastInput{Now: rs.Now, Objects: rs.Objects, Deadlines: rs.Deadlines})
			byName := map[string]int{}
			for i, wl := range rs.Objects.Workloads {
				byName[wl.Namespace+"/"+wl.Name] = i
			}
			for _, it := range rs.Pending {
				ns, _, _ := strings.Cut(it.Job, "/")
				i, ok := byName[ns+"/"+it.Workload]
				if !ok {
					t.Fatalf("%s: sample at %s: no Workload %s/%s", path, rs.Now, ns, it.Workload)
				}
				r := &diagnose.Report{Verdict: diagnose.Verdict{Code: it.Code}, Queue: diagnose.QueueInfo{ClusterQueue: it.ClusterQueue}}
				samples = append(samples, estimateSample{job: it.Job, at: rs.Now, estimate: fc.Estimate(rs.Objects.Workloads[i], r), baseline: it.Baseline})
			}
		}
		fig := scoreEstimates(samples, rec.Admitted, rec.Created)
		// The signed errors say whether the estimate is early or late.
		var signed []float64
		for _, s := range samples {
			adm, ok := rec.Admitted[s.job]
			wait := adm.Sub(rec.Created[s.job])
			if ok && adm.After(s.at.Add(-time.Second)) && wait >= minScoredWait && s.estimate.Known() && !s.baseline.IsZero() {
				signed = append(signed, s.estimate.Likely.Sub(adm).Seconds()/wait.Seconds())
			}
		}
		t.Logf("%s: signed error p10 %.0f%% p50 %.0f%% p90 %.0f%% (negative: early)", filepath.Base(path), 100*percentile(signed, 0.1), 100*percentile(signed, 0.5), 100*percentile(signed, 0.9))
		for _, w := range fig.worst[:min(len(fig.worst), 4)] {
			t.Logf("%s: worst: %s at +%s: likely +%s, baseline +%s, admitted +%s (waited %s)", filepath.Base(path), w.job, w.at.Sub(rec.Begin).Round(time.Second),
				w.likely.Sub(rec.Begin).Round(time.Second), w.baseline.Sub(rec.Begin).Round(time.Second), w.admitted.Sub(rec.Begin).Round(time.Second), w.wait.Round(time.Second))
		}
		t.Logf("%s (seed %d): estimator median %.0f%% p90 %.0f%%, baseline median %.0f%% p90 %.0f%% (%.2fx), %d/%d estimated, in range %.0f%%",
			filepath.Base(path), rec.Seed, 100*fig.estMedian, 100*fig.estP90, 100*fig.baseMedian, 100*fig.baseP90,
			fig.baseMedian/max(fig.estMedian, 1e-9), fig.estimated, fig.samples, 100*fig.inRange)
	}
}
