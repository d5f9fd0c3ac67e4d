package explain

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// stuckReader never answers until its context ends.
type stuckReader struct{}

func (stuckReader) Namespaces(ctx context.Context, _ rbac.Identity, _ string) (rbac.Namespaces, error) {
	<-ctx.Done()
	return rbac.Namespaces{}, ctx.Err()
}

func (stuckReader) Snapshot(ctx context.Context, _ rbac.Identity, _ diagnose.Target) (*diagnose.Snapshot, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stuckReader) List(ctx context.Context, _ rbac.Identity, _ []string) (Listing, error) {
	<-ctx.Done()
	return Listing{}, ctx.Err()
}

// whoReader records who it was read as.
type whoReader struct {
	*DumpReader
	users atomic.Value
}

func (w *whoReader) Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	w.users.Store(id.User)
	return w.DumpReader.Namespaces(ctx, id, explicit)
}

func (w *whoReader) List(ctx context.Context, id rbac.Identity, namespaces []string) (Listing, error) {
	w.users.Store(id.User)
	return w.DumpReader.List(ctx, id, namespaces)
}

func examplesReader(t *testing.T) *DumpReader {
	t.Helper()
	d, err := fetch.LoadFiles([]string{"../deploy/examples/scenarios/missing-priority-class.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return &DumpReader{Dump: d}
}

func unmapped(context.Context, rbac.Identity) (rbac.Identity, bool, error) {
	return rbac.Identity{}, false, nil
}

func TestFleetQueuesAcrossClusters(t *testing.T) {
	west := &whoReader{DumpReader: examplesReader(t)}
	east := &whoReader{DumpReader: examplesReader(t)}
	f, err := NewFleet([]*Cluster{
		{Name: "gpu-west", Explainer: &Explainer{Reader: west}, Identity: func(_ context.Context, id rbac.Identity) (rbac.Identity, bool, error) {
			id.User += "@west"
			return id, true, nil
		}},
		{Name: "gpu-east", Explainer: &Explainer{Reader: east}},
		{Name: "staging", Explainer: &Explainer{Reader: failingReader{}}, Identity: unmapped},
		{Name: "gpu-south", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-missing-priority-class"}}
	start := time.Now()
	res, err := f.Queues(t.Context(), id, QueuesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s: gpu-south's timeout is 100ms", d)
	}
	var clusters []string
	for _, q := range res.Queues {
		if !slices.Contains(clusters, q.Cluster) {
			clusters = append(clusters, q.Cluster)
		}
	}
	if !slices.Equal(clusters, []string{"gpu-west", "gpu-east"}) {
		t.Errorf("queues from %v, want gpu-west then gpu-east, each queue naming its cluster", clusters)
	}
	want := []diagnose.ClusterLook{{Cluster: "gpu-west", Found: true}, {Cluster: "gpu-east", Found: true}, {Cluster: "gpu-south", Error: "did not answer within 100ms"}}
	if !sameLooks(t, res.Clusters, want) {
		t.Errorf("looks %+v, want %+v (staging unmapped is not read)", res.Clusters, want)
	}
	if u := west.users.Load(); u != "alice@west" {
		t.Errorf("gpu-west read as %v, want alice's mapping there", u)
	}
	if !slices.Contains(res.Namespaces.Names, "gpu-east/sc-missing-priority-class") {
		t.Errorf("namespaces %v do not name their cluster", res.Namespaces.Names)
	}

	// Naming a cluster reads only there.
	east.users.Store("")
	res, err = f.Queues(t.Context(), id, QueuesQuery{Cluster: "gpu-west"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queues) == 0 || slices.ContainsFunc(res.Queues, func(q diagnose.QueueSummary) bool { return q.Cluster != "gpu-west" }) {
		t.Errorf("queues %+v, want gpu-west's only", res.Queues)
	}
	if u := east.users.Load(); u != "" {
		t.Errorf("gpu-east was read (as %v) for a question naming gpu-west", u)
	}
	if _, err := f.Queues(t.Context(), id, QueuesQuery{Cluster: "staging"}); err == nil || !strings.Contains(err.Error(), "not mapped to a Kubernetes user in cluster staging") {
		t.Errorf("staging, where alice is not mapped: %v", err)
	}
	if _, err := f.Queues(t.Context(), id, QueuesQuery{Cluster: "gpu-south"}); err == nil {
		t.Error("gpu-south hangs: want an error, not an empty list")
	}
}

func TestFleetQueuesNoneAnswers(t *testing.T) {
	f, err := NewFleet([]*Cluster{
		{Name: "a", Explainer: &Explainer{Reader: failingReader{}}},
		{Name: "b", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Queues(t.Context(), rbac.Identity{User: "alice"}, QueuesQuery{})
	var ue *Error
	if !errors.As(err, &ue) || !strings.Contains(ue.Message, "I could not list your queues:") || !strings.Contains(ue.Message, " a ") || !strings.Contains(ue.Message, "b did not answer") {
		t.Fatalf("want an error naming a and b, got %v", err)
	}
}

// failingReader fails every read with a connection error.
type failingReader struct{}

func (failingReader) Namespaces(context.Context, rbac.Identity, string) (rbac.Namespaces, error) {
	return rbac.Namespaces{}, errors.New("connection refused")
}

func (failingReader) Snapshot(context.Context, rbac.Identity, diagnose.Target) (*diagnose.Snapshot, error) {
	return nil, errors.New("connection refused")
}

func (failingReader) List(context.Context, rbac.Identity, []string) (Listing, error) {
	return Listing{}, errors.New("connection refused")
}

func TestFleetCheck(t *testing.T) {
	west, _, _ := checkEnv(t)
	east, _, kq := checkEnv(t)
	// gpu-east has only the LocalQueue big.
	if err := kq.KueueV1beta2().LocalQueues("team-a").Delete(t.Context(), "small", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := NewFleet([]*Cluster{
		{Name: "gpu-west", Explainer: west},
		{Name: "gpu-east", Explainer: east},
		{Name: "staging", Explainer: &Explainer{Reader: failingReader{}}, Identity: unmapped},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := rbac.Identity{User: "alice"}
	check := func(req CheckRequest) diagnose.CheckReport {
		t.Helper()
		res, err := f.Check(t.Context(), id, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Report
	}
	queues := func(r diagnose.CheckReport) []string {
		var out []string
		for _, q := range r.Queues {
			out = append(out, q.Cluster+":"+q.LocalQueue+"="+string(q.Fit))
		}
		return out
	}

	// small exists only in gpu-west: the answer is gpu-west's, naming it.
	r := check(CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: small"))})
	if r.Cluster != "gpu-west" || !slices.Equal(queues(r), []string{"gpu-west:small=AdmittedNow"}) {
		t.Errorf("small: cluster %q, queues %v; want gpu-west's answer", r.Cluster, queues(r))
	}
	wantLooks := []diagnose.ClusterLook{{Cluster: "gpu-west", Found: true}, {Cluster: "gpu-east"}}
	if !sameLooks(t, r.Clusters, wantLooks) {
		t.Errorf("looks %+v, want %+v", r.Clusters, wantLooks)
	}
	// big is in both: each cluster's answer, naming its cluster.
	r = check(CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: big"))})
	if r.Cluster != "" || !slices.Equal(queues(r), []string{"gpu-west:big=AdmittedNow", "gpu-east:big=AdmittedNow"}) {
		t.Errorf("big: cluster %q, queues %v; want both", r.Cluster, queues(r))
	}
	// No queue label: every LocalQueue of each cluster.
	r = check(CheckRequest{Manifest: []byte(job(2, ""))})
	if got := queues(r); len(got) != 3 || !slices.Contains(got, "gpu-east:big=AdmittedNow") || !slices.Contains(got, "gpu-west:small=AdmittedNow") {
		t.Errorf("no label: queues %v, want gpu-west's two and gpu-east's one", got)
	}
	// A LocalQueue in no cluster: one answer saying it is missing, naming
	// the clusters looked in.
	r = check(CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: nope"))})
	if len(r.Queues) != 1 || r.Queues[0].Verdict.Cause != diagnose.CauseLocalQueueNotFound || len(r.Clusters) != 2 || r.Clusters[0].Found || r.Clusters[1].Found {
		t.Errorf("nope: %+v, looks %+v", queues(r), r.Clusters)
	}
	// Naming the cluster checks there only.
	r = check(CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: big")), Cluster: "gpu-east"})
	if r.Cluster != "gpu-east" || !slices.Equal(queues(r), []string{"gpu-east:big=AdmittedNow"}) || r.Clusters != nil {
		t.Errorf("--cluster gpu-east: %q %v %+v", r.Cluster, queues(r), r.Clusters)
	}
	if _, err := f.Check(t.Context(), id, CheckRequest{Manifest: []byte(job(2, "")), Cluster: "staging"}); err == nil || !strings.Contains(err.Error(), "cluster staging") {
		t.Errorf("staging: %v", err)
	}
}

func TestFleetCheckClusterFails(t *testing.T) {
	west, _, kq := checkEnv(t)
	if err := kq.KueueV1beta2().LocalQueues("team-a").Delete(t.Context(), "small", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	down, _, _ := checkEnv(t)
	down.Reader = &plannerFailing{ClientReader: down.Reader.(*ClientReader)}
	f, err := NewFleet([]*Cluster{{Name: "gpu-west", Explainer: west}, {Name: "gpu-east", Explainer: down}})
	if err != nil {
		t.Fatal(err)
	}
	// small is not in gpu-west and gpu-east fails: never "not found".
	_, err = f.Check(t.Context(), rbac.Identity{User: "alice"}, CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: small"))})
	var ue *Error
	if !errors.As(err, &ue) || !strings.Contains(ue.Message, "gpu-east did not answer: connection refused") {
		t.Fatalf("want an error naming gpu-east, got %v", err)
	}
	// big is in gpu-west: its answer, with gpu-east named as failed.
	res, err := f.Check(t.Context(), rbac.Identity{User: "alice"}, CheckRequest{Manifest: []byte(job(2, "kueue.x-k8s.io/queue-name: big"))})
	if err != nil {
		t.Fatal(err)
	}
	want := []diagnose.ClusterLook{{Cluster: "gpu-west", Found: true}, {Cluster: "gpu-east", Error: "connection refused"}}
	if res.Report.Cluster != "gpu-west" || !sameLooks(t, res.Report.Clusters, want) {
		t.Errorf("cluster %q looks %+v, want gpu-west and %+v", res.Report.Cluster, res.Report.Clusters, want)
	}
}

// plannerFailing is a cluster whose reads fail after the namespace.
type plannerFailing struct{ *ClientReader }

func (p *plannerFailing) PlanInputs(context.Context, rbac.Identity, string, []string, bool) (fetch.PlanInputs, error) {
	return fetch.PlanInputs{}, errors.New("connection refused")
}

// slowReader answers as its DumpReader does, after a delay.
type slowReader struct {
	*DumpReader
	delay time.Duration
}

func (s slowReader) List(ctx context.Context, id rbac.Identity, namespaces []string) (Listing, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return Listing{}, ctx.Err()
	}
	return s.DumpReader.List(ctx, id, namespaces)
}

// jobsFleet: gpu-north answers last (slow, within its timeout), gpu-west
// as alice@west, gpu-east, staging where alice is not mapped, gpu-south
// that hangs past its timeout, lab that fails and iam whose identity
// mapping fails.
func jobsFleet(t *testing.T) (*Fleet, *whoReader, *whoReader) {
	t.Helper()
	west := &whoReader{DumpReader: examplesReader(t)}
	east := &whoReader{DumpReader: examplesReader(t)}
	f, err := NewFleet([]*Cluster{
		{Name: "gpu-north", Explainer: &Explainer{Reader: slowReader{DumpReader: examplesReader(t), delay: 150 * time.Millisecond}}, Timeout: 5 * time.Second},
		{Name: "gpu-west", Explainer: &Explainer{Reader: west}, Identity: func(_ context.Context, id rbac.Identity) (rbac.Identity, bool, error) {
			id.User += "@west"
			return id, true, nil
		}},
		{Name: "gpu-east", Explainer: &Explainer{Reader: east}},
		{Name: "staging", Explainer: &Explainer{Reader: failingReader{}}, Identity: unmapped},
		{Name: "gpu-south", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 100 * time.Millisecond},
		{Name: "lab", Explainer: &Explainer{Reader: failingReader{}}},
		{Name: "iam", Explainer: &Explainer{Reader: examplesReader(t)}, Identity: func(context.Context, rbac.Identity) (rbac.Identity, bool, error) {
			return rbac.Identity{}, false, errors.New("identity service unavailable")
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, west, east
}

// TestFleetJobsAcrossClusters: the jobs of every cluster that answered,
// in config order whatever order the clusters answered in (gpu-north,
// first in the config, answers last), each cluster's own list unchanged
// (newest first) and naming its cluster; a cluster that fails, hangs or
// cannot map the caller is named with why, and an unmapped one is not
// read.
func TestFleetJobsAcrossClusters(t *testing.T) {
	f, west, _ := jobsFleet(t)
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-missing-priority-class"}}
	own, err := (&Explainer{Reader: examplesReader(t)}).Jobs(t.Context(), id, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(own.Jobs) == 0 {
		t.Fatal("the scenario lists no jobs: the test would prove nothing")
	}
	start := time.Now()
	res, err := f.Jobs(t.Context(), id, JobsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s: gpu-south's timeout is 100ms, gpu-north answers in 150ms", d)
	}
	var want []diagnose.Report
	for _, c := range []string{"gpu-north", "gpu-west", "gpu-east"} {
		for _, r := range own.Jobs {
			r.Cluster = c
			want = append(want, r)
		}
	}
	if len(res.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d: each answering cluster's %d", len(res.Jobs), len(want), len(own.Jobs))
	}
	for i := range want {
		g, w := res.Jobs[i], want[i]
		if g.Cluster != w.Cluster || g.Target != w.Target || g.Verdict.Code != w.Verdict.Code {
			t.Errorf("job %d: %s %v %s, want %s %v %s", i, g.Cluster, g.Target, g.Verdict.Code, w.Cluster, w.Target, w.Verdict.Code)
		}
	}
	wantLooks := []diagnose.ClusterLook{
		{Cluster: "gpu-north", Found: true},
		{Cluster: "gpu-west", Found: true},
		{Cluster: "gpu-east", Found: true},
		{Cluster: "gpu-south", Error: "did not answer within 100ms"},
		{Cluster: "lab", Error: "connection refused"},
		{Cluster: "iam", Error: "identity service unavailable"},
	}
	if !sameLooks(t, res.Clusters, wantLooks) {
		t.Errorf("looks %+v,\nwant %+v (staging unmapped is not read)", res.Clusters, wantLooks)
	}
	if u := west.users.Load(); u != "alice@west" {
		t.Errorf("gpu-west read as %v, want alice's mapping there", u)
	}
	wantNS := []string{"gpu-north/sc-missing-priority-class", "gpu-west/sc-missing-priority-class", "gpu-east/sc-missing-priority-class"}
	if !slices.Equal(res.Namespaces.Names, wantNS) || res.Namespaces.Source != rbac.SourceConfigured {
		t.Errorf("namespaces %v (%s), want %v", res.Namespaces.Names, res.Namespaces.Source, wantNS)
	}
}

// TestFleetJobsNamedCluster: naming a cluster lists there only; an
// unknown cluster, one where the caller is not mapped and one that does
// not answer are errors, never an empty list.
func TestFleetJobsNamedCluster(t *testing.T) {
	f, west, east := jobsFleet(t)
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-missing-priority-class"}}
	res, err := f.Jobs(t.Context(), id, JobsQuery{Cluster: "gpu-west"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) == 0 || slices.ContainsFunc(res.Jobs, func(r diagnose.Report) bool { return r.Cluster != "gpu-west" }) {
		t.Errorf("jobs %+v, want gpu-west's only", res.Jobs)
	}
	if want := []diagnose.ClusterLook{{Cluster: "gpu-west", Found: true}}; !sameLooks(t, res.Clusters, want) {
		t.Errorf("looks %+v, want %+v", res.Clusters, want)
	}
	if u := west.users.Load(); u != "alice@west" {
		t.Errorf("gpu-west read as %v, want alice@west", u)
	}
	if u := east.users.Load(); u != nil {
		t.Errorf("gpu-east was read (as %v) for a question naming gpu-west", u)
	}
	for _, tc := range []struct {
		cluster, want string
	}{
		{"nowhere", "I don't know a cluster called nowhere."},
		{"staging", "not mapped to a Kubernetes user in cluster staging"},
		{"gpu-south", "I could not list your jobs: gpu-south did not answer: did not answer within 100ms."},
		{"lab", "I could not list your jobs: lab did not answer: connection refused."},
	} {
		start := time.Now()
		_, err := f.Jobs(t.Context(), id, JobsQuery{Cluster: tc.cluster})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.cluster, err, tc.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %s", tc.cluster, d)
		}
	}
}

// TestFleetJobsNoneAnswers: when no cluster answers, one error names each
// and why; when the caller is mapped nowhere, the error says so; when the
// question's own context ends, its error, not the clusters'.
func TestFleetJobsNoneAnswers(t *testing.T) {
	f, err := NewFleet([]*Cluster{
		{Name: "a", Explainer: &Explainer{Reader: failingReader{}}},
		{Name: "b", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := rbac.Identity{User: "alice", Namespaces: []string{"team-a"}}
	res, err := f.Jobs(t.Context(), id, JobsQuery{})
	var ue *Error
	if !errors.As(err, &ue) || !strings.Contains(ue.Message, "I could not list your jobs:") || !strings.Contains(ue.Message, "a did not answer: connection refused.") || !strings.Contains(ue.Message, "b did not answer: did not answer within 50ms.") {
		t.Fatalf("want an error naming a and b, got %v", err)
	}
	if len(res.Clusters) != 2 || res.Clusters[0].Found || res.Clusters[1].Found {
		t.Errorf("looks %+v, want a and b, neither found", res.Clusters)
	}

	nowhere, err := NewFleet([]*Cluster{{Name: "a", Explainer: &Explainer{Reader: failingReader{}}, Identity: unmapped}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nowhere.Jobs(t.Context(), id, JobsQuery{}); !errors.As(err, &ue) || ue.Msg.ID != "explain.notMappedAny" {
		t.Errorf("mapped nowhere: %v", err)
	}

	slow, err := NewFleet([]*Cluster{{Name: "a", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := slow.Jobs(ctx, id, JobsQuery{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the question's deadline passed: %v, want context.DeadlineExceeded", err)
	}
}
