// Package bottest holds what the tests of the bot's packages share and no
// production code needs: reading a metric back from a Prometheus registry
// by name and labels, since the metrics' collectors are unexported in
// package metrics.
package bottest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Value returns the value of the series name{labels} gathered from g: a
// counter's or a gauge's value, a histogram's sample count; 0 when no
// such series exists. labels are name, value pairs.
func Value(t testing.TB, g prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	if len(labels)%2 != 0 {
		t.Fatalf("labels of %s: %q are not name, value pairs", name, labels)
	}
	families, err := g.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for i := 0; i < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue series
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return 0
}
