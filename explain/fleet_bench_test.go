package explain_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// slowReader answers every read after a fixed latency, as an API server
// a few milliseconds away does.
type slowReader struct {
	explain.Reader
	latency time.Duration
}

func (s slowReader) Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	time.Sleep(s.latency)
	return s.Reader.Namespaces(ctx, id, explicit)
}

func (s slowReader) Snapshot(ctx context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	time.Sleep(s.latency)
	return s.Reader.Snapshot(ctx, id, t)
}

// BenchmarkFleetQuestion: a question that must look in 5 clusters (the
// job is in one of them) against one that names its cluster, each read 5ms
// away.
func BenchmarkFleetQuestion(b *testing.B) {
	const latency = 5 * time.Millisecond
	manager := dumpReader(b, "../deploy/examples/scenarios/multikueue-admitted.yaml")
	other := dumpReader(b, "../deploy/examples/scenarios/worker/multikueue-waiting.yaml")
	var clusters []*explain.Cluster
	for i := range 5 {
		r := other
		if i == 2 {
			r = manager
		}
		clusters = append(clusters, &explain.Cluster{Name: fmt.Sprintf("c%d", i), Explainer: &explain.Explainer{Reader: slowReader{r, latency}}})
	}
	f, err := explain.NewFleet(clusters)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cluster string
	}{{"five-clusters", ""}, {"named-cluster", "c2"}} {
		b.Run(tc.name, func(b *testing.B) {
			q := train
			q.Cluster = tc.cluster
			for b.Loop() {
				res, err := f.Explain(b.Context(), alice, q)
				if err != nil || res.Cluster != "c2" {
					b.Fatalf("answer from %q: %v", res.Cluster, err)
				}
			}
		})
	}
}

// slowLister is a slowReader that also lists (queues, "my jobs").
type slowLister struct {
	slowReader
	l explain.Lister
}

func (s slowLister) List(ctx context.Context, id rbac.Identity, namespaces []string) (explain.Listing, error) {
	time.Sleep(s.latency)
	return s.l.List(ctx, id, namespaces)
}

// BenchmarkFleetQueues: `/kueue queues` across 5 clusters against one
// named cluster, each read 5ms away.
func BenchmarkFleetQueues(b *testing.B) {
	const latency = 5 * time.Millisecond
	var clusters []*explain.Cluster
	for i := range 5 {
		r := dumpReader(b, "../deploy/examples/scenarios/multikueue-admitted.yaml")
		clusters = append(clusters, &explain.Cluster{Name: fmt.Sprintf("c%d", i), Explainer: &explain.Explainer{Reader: slowLister{slowReader{r, latency}, r.(explain.Lister)}}})
	}
	f, err := explain.NewFleet(clusters)
	if err != nil {
		b.Fatal(err)
	}
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-multikueue-admitted"}}
	for _, tc := range []struct {
		name    string
		cluster string
		want    int
	}{{"five-clusters", "", 5}, {"named-cluster", "c2", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := f.Queues(b.Context(), id, explain.QueuesQuery{Cluster: tc.cluster})
				if err != nil || len(res.Clusters) != tc.want || len(res.Queues) == 0 {
					b.Fatalf("%d clusters, %d queues: %v", len(res.Clusters), len(res.Queues), err)
				}
			}
		})
	}
}
