package explain_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// recorder wraps a Reader and records who each read was made as.
type recorder struct {
	explain.Reader
	mu    sync.Mutex
	users []string
}

func (r *recorder) Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	r.mu.Lock()
	r.users = append(r.users, id.User)
	r.mu.Unlock()
	return r.Reader.Namespaces(ctx, id, explicit)
}

func (r *recorder) Snapshot(ctx context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	r.mu.Lock()
	r.users = append(r.users, id.User)
	r.mu.Unlock()
	return r.Reader.Snapshot(ctx, id, t)
}

func (r *recorder) reads() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.users)
}

// hanging never answers until its context ends.
type hanging struct{}

func (hanging) Namespaces(ctx context.Context, _ rbac.Identity, _ string) (rbac.Namespaces, error) {
	<-ctx.Done()
	return rbac.Namespaces{}, ctx.Err()
}

func (hanging) Snapshot(ctx context.Context, _ rbac.Identity, _ diagnose.Target) (*diagnose.Snapshot, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// failing fails every read.
type failing struct{ err error }

func (f failing) Namespaces(context.Context, rbac.Identity, string) (rbac.Namespaces, error) {
	return rbac.Namespaces{}, f.err
}

func (f failing) Snapshot(context.Context, rbac.Identity, diagnose.Target) (*diagnose.Snapshot, error) {
	return nil, f.err
}

func dumpReader(t testing.TB, path string) explain.Reader {
	t.Helper()
	d, err := fetch.LoadFiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	return &explain.DumpReader{Dump: d, Unrestricted: true}
}

// mkFleet: the real Kueue's dumps of a MultiKueue manager and its worker
// (scenario multikueue-admitted), and a third cluster holding other jobs.
func mkFleet(t *testing.T, third explain.Reader, timeout time.Duration) (*explain.Fleet, *recorder, *recorder) {
	t.Helper()
	manager := &recorder{Reader: dumpReader(t, "../deploy/examples/scenarios/multikueue-admitted.yaml")}
	worker := &recorder{Reader: dumpReader(t, "../deploy/examples/scenarios/worker/multikueue-admitted.yaml")}
	f, err := explain.NewFleet([]*explain.Cluster{
		{Name: "manager", Explainer: &explain.Explainer{Reader: manager}, Timeout: timeout},
		{Name: "gpu-west", MultiKueueCluster: "sc-mk-admitted-worker1", Explainer: &explain.Explainer{Reader: worker}, Timeout: timeout,
			// alice is alice@west there.
			Identity: func(_ context.Context, id rbac.Identity) (rbac.Identity, bool, error) {
				id.User += "@west"
				return id, true, nil
			}},
		{Name: "gpu-east", Explainer: &explain.Explainer{Reader: third}, Timeout: timeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, manager, worker
}

var (
	alice = rbac.Identity{User: "alice"}
	train = explain.Question{Kind: "Job", Name: "train", Namespace: "sc-multikueue-admitted"}
)

func TestFleetNamedCluster(t *testing.T) {
	f, manager, worker := mkFleet(t, failing{errors.New("never read")}, time.Second)
	q := train
	q.Cluster = "manager"
	res, err := f.Explain(t.Context(), alice, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cluster != "manager" || res.Report.Cluster != "manager" {
		t.Fatalf("answer from %q/%q, want manager", res.Cluster, res.Report.Cluster)
	}
	// The manager's MultiKueue job is followed into gpu-west, the
	// configured cluster of MultiKueueCluster sc-mk-admitted-worker1, as
	// alice mapped there.
	if len(res.Report.Workers) != 1 || res.Report.Workers[0].Report == nil {
		t.Fatalf("want gpu-west's own diagnosis, got %+v", res.Report.Workers)
	}
	if got := res.Report.Workers[0].Report.Queue.ClusterQueue; got != "sc-multikueue-admitted-worker" {
		t.Errorf("worker report in ClusterQueue %q", got)
	}
	for _, u := range manager.reads() {
		if u != "alice" {
			t.Errorf("manager read as %q, want alice", u)
		}
	}
	wr := worker.reads()
	if len(wr) == 0 {
		t.Fatal("gpu-west was never read")
	}
	for _, u := range wr {
		if u != "alice@west" {
			t.Errorf("gpu-west read as %q, want alice's mapping there, alice@west", u)
		}
	}

	q.Cluster = "nowhere"
	_, err = f.Explain(t.Context(), alice, q)
	if err == nil || !strings.Contains(err.Error(), "I don't know a cluster called nowhere. The clusters I read are: manager, gpu-west, gpu-east.") {
		t.Errorf("unknown cluster: %v", err)
	}
}

func TestFleetFoundInSeveral(t *testing.T) {
	f, _, _ := mkFleet(t, dumpReader(t, "../deploy/examples/scenarios/worker/multikueue-waiting.yaml"), time.Second)
	res, err := f.Explain(t.Context(), alice, train)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Choices {
		got = append(got, c.Cluster+":"+c.Target.Namespace+"/"+c.Target.Name)
	}
	if strings.Join(got, ",") != "manager:sc-multikueue-admitted/train,gpu-west:sc-multikueue-admitted/train" {
		t.Fatalf("choices %v, want manager and gpu-west", got)
	}
	if len(res.Report.Clusters) != 3 || res.Report.Clusters[2].Found || res.Report.Clusters[2].Error != "" {
		t.Errorf("looks %+v: gpu-east searched, not found", res.Report.Clusters)
	}
}

func TestFleetFoundInOneWhileAnotherHangs(t *testing.T) {
	f, _, _ := mkFleet(t, hanging{}, 200*time.Millisecond)
	q := explain.Question{Kind: "Job", Name: "train", Namespace: "sc-multikueue-admitted", Cluster: ""}
	// Only the manager has it in this fleet once gpu-west is not mapped.
	f2, err := explain.NewFleet([]*explain.Cluster{
		f.Cluster("manager"),
		{Name: "gpu-west", Explainer: f.Cluster("gpu-west").Explainer, Identity: func(context.Context, rbac.Identity) (rbac.Identity, bool, error) {
			return rbac.Identity{}, false, nil
		}},
		f.Cluster("gpu-east"),
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := f2.Explain(t.Context(), alice, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s: the hanging cluster's timeout is 200ms", d)
	}
	if res.Report.Cluster != "manager" || res.Report.Verdict.Code == diagnose.CodeNotFound {
		t.Fatalf("answer %s from %q, want the manager's", res.Report.Verdict.Code, res.Report.Cluster)
	}
	want := []diagnose.ClusterLook{{Cluster: "manager", Found: true}, {Cluster: "gpu-east", Error: "did not answer within 200ms"}}
	if !explain.SameLooks(t, res.Report.Clusters, want) {
		t.Fatalf("looks %+v, want %+v (gpu-west unmapped is not searched)", res.Report.Clusters, want)
	}
	// The asker reads why gpu-east was not searched in their language.
	east := res.Report.Clusters[1]
	for l, want := range map[i18n.Lang]string{
		i18n.English:  "did not answer within 200ms",
		i18n.French:   "n’a pas répondu en 200ms",
		i18n.Japanese: "200ms 以内に応答しませんでした",
		i18n.Chinese:  "200ms 内没有应答",
	} {
		if got := east.ErrorIn(l); got != want {
			t.Errorf("gpu-east's error in %s: %q, want %q", l, got, want)
		}
	}
}

func TestFleetNotFoundIsNeverAFailure(t *testing.T) {
	q := explain.Question{Kind: "Job", Name: "nope", Namespace: "sc-multikueue-admitted"}
	// Every cluster answers: one not-found answer naming them.
	f, _, _ := mkFleet(t, dumpReader(t, "../deploy/examples/scenarios/worker/multikueue-waiting.yaml"), time.Second)
	res, err := f.Explain(t.Context(), alice, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Verdict.Code != diagnose.CodeNotFound || !strings.Contains(res.Report.Verdict.HeadlineIn(i18n.English), "in any of your clusters (manager, gpu-west, gpu-east)") {
		t.Errorf("not found: %s %q", res.Report.Verdict.Code, res.Report.Verdict.Headline)
	}
	// One cluster fails, one hangs: named, and no "not found".
	for _, tc := range []struct {
		name   string
		reader explain.Reader
		want   string
	}{
		{"fails", failing{&explain.Error{Message: "the API server of gpu-east answered 503"}}, "In gpu-east: the API server of gpu-east answered 503."},
		{"hangs", hanging{}, "gpu-east did not answer: did not answer within 100ms."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := mkFleet(t, tc.reader, 100*time.Millisecond)
			res, err := f.Explain(t.Context(), alice, q)
			if err == nil {
				t.Fatalf("want an answer naming gpu-east, got %s %q", res.Report.Verdict.Code, res.Report.Verdict.Headline)
			}
			msg := err.Error()
			if !strings.Contains(msg, "I did not find nope in manager, gpu-west, but") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "cannot say whether nope exists") {
				t.Errorf("answer %q, want it to name gpu-east (%q)", msg, tc.want)
			}
		})
	}
}

func TestFleetWorkerUnmapped(t *testing.T) {
	f, _, _ := mkFleet(t, failing{errors.New("x")}, time.Second)
	if f.Worker("sc-mk-admitted-worker1") == nil || f.Worker("unknown") != nil {
		t.Fatal("Worker must find configured clusters by multiKueueCluster only")
	}
}

func TestPickCluster(t *testing.T) {
	names := []string{"gpu-west", "gpu-east"}
	for _, tc := range []struct {
		in            explain.Question
		cluster, name string
		candidates    []string
	}{
		// "why is train-7 waiting on gpu-west", `/kueue why train-7 gpu-west`
		{explain.Question{Name: "train-7", Candidates: []string{"train-7", "gpu-west"}}, "gpu-west", "train-7", nil},
		// "gpu-west の train-7 はなぜ待っている"
		{explain.Question{Name: "gpu-west", Candidates: []string{"gpu-west", "train-7"}}, "gpu-west", "train-7", nil},
		// "why is train-7 waiting on cluster gpu-east"
		{explain.Question{Name: "train-7", Candidates: []string{"train-7", "gpu-east", "cluster"}}, "gpu-east", "train-7", nil},
		{explain.Question{Name: "train-7", Candidates: []string{"train-7", "big", "gpu-east"}}, "gpu-east", "train-7", []string{"train-7", "big"}},
		// Not a configured cluster: untouched.
		{explain.Question{Name: "train-7", Candidates: []string{"train-7", "gpu-north"}}, "", "train-7", []string{"train-7", "gpu-north"}},
		// A certain name is never a cluster.
		{explain.Question{Name: "gpu-west"}, "", "gpu-west", nil},
	} {
		got := explain.PickCluster(tc.in, names)
		if got.Cluster != tc.cluster || got.Name != tc.name || !slices.Equal(got.Candidates, tc.candidates) {
			t.Errorf("PickCluster(%v) = %q %q %v, want %q %q %v", tc.in.Candidates, got.Cluster, got.Name, got.Candidates, tc.cluster, tc.name, tc.candidates)
		}
	}
}

func TestFleetJobs(t *testing.T) {
	f, _, _ := mkFleet(t, hanging{}, 200*time.Millisecond)
	res, err := f.Jobs(t.Context(), alice, explain.JobsQuery{Namespace: "sc-multikueue-admitted"})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, r := range res.Jobs {
		by[r.Cluster]++
	}
	if by["manager"] == 0 || by["gpu-west"] == 0 || by[""] != 0 {
		t.Errorf("jobs by cluster %v: want jobs of manager and gpu-west, each naming its cluster", by)
	}
	want := []diagnose.ClusterLook{{Cluster: "manager", Found: true}, {Cluster: "gpu-west", Found: true}, {Cluster: "gpu-east", Error: "did not answer within 200ms"}}
	if !explain.SameLooks(t, res.Clusters, want) {
		t.Errorf("clusters %+v, want %+v", res.Clusters, want)
	}
}

func (r *recorder) List(ctx context.Context, id rbac.Identity, namespaces []string) (explain.Listing, error) {
	r.mu.Lock()
	r.users = append(r.users, id.User)
	r.mu.Unlock()
	return r.Reader.(explain.Lister).List(ctx, id, namespaces)
}

func (hanging) List(ctx context.Context, _ rbac.Identity, _ []string) (explain.Listing, error) {
	<-ctx.Done()
	return explain.Listing{}, ctx.Err()
}
