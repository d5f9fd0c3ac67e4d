package fetch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// PlanInputs are the objects besides the queues that decide what Kueue
// counts for a manifest that is not submitted yet, read as the caller.
type PlanInputs struct {
	// LimitRanges are the namespace's LimitRanges; nil when they could
	// not be listed (Gaps says why).
	LimitRanges []corev1.LimitRange
	// RuntimeClasses are the named RuntimeClasses that were read.
	RuntimeClasses map[string]*nodev1.RuntimeClass
	// LocalQueues are the namespace's LocalQueues, when asked for and
	// readable.
	LocalQueues []kueue.LocalQueue
	// Gaps are the reads that failed.
	Gaps []diagnose.Gap
}

// ReadPlanInputs reads, as the caller, what Kueue's AdjustResources reads
// for a Workload of namespace ns (its LimitRanges: one LIST; each
// RuntimeClass named: one GET each) and, when listQueues is set, the
// namespace's LocalQueues (one LIST). Reads only: nothing is created, not
// even with a dry run. A read the caller may not make becomes a Gap; the
// call fails only when the cluster does not answer or ctx ends.
func (f *Fetcher) ReadPlanInputs(ctx context.Context, ns string, runtimeClasses []string, listQueues bool) (PlanInputs, error) {
	if f.Kube == nil || f.Kueue == nil {
		return PlanInputs{}, errors.New("fetch: Fetcher needs Kube and Kueue clients")
	}
	if ns == "" {
		return PlanInputs{}, fmt.Errorf("%w: a namespace is required", ErrBadTarget)
	}
	src := &liveSource{f: f}
	var in PlanInputs
	fail := func(kind, name string, err error) error {
		if fatal(ctx, err) {
			return stop(ctx, err)
		}
		if !isAnswer(err) {
			return newReadError(kind, ns, name, classify(err, 0))
		}
		in.Gaps = append(in.Gaps, gapFor(kind, name, err))
		return nil
	}
	lrs, err := do(ctx, src, func(ctx context.Context) (*corev1.LimitRangeList, error) {
		return f.Kube.CoreV1().LimitRanges(ns).List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		if err := fail("LimitRange", "", err); err != nil {
			return in, err
		}
	} else {
		in.LimitRanges = lrs.Items
	}
	in.RuntimeClasses = map[string]*nodev1.RuntimeClass{}
	for _, name := range runtimeClasses {
		rc, err := do(ctx, src, func(ctx context.Context) (*nodev1.RuntimeClass, error) {
			return f.Kube.NodeV1().RuntimeClasses().Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			if err := fail("RuntimeClass", name, err); err != nil {
				return in, err
			}
			continue
		}
		in.RuntimeClasses[name] = rc
	}
	if listQueues {
		if _, err := src.kueueServed(ctx); err != nil && !isAnswer(err) {
			return in, fail("LocalQueue", "", err)
		}
		lqs, err := src.listLocalQueues(ctx, ns)
		if err != nil {
			if err := fail("LocalQueue", "", err); err != nil {
				return in, err
			}
		} else {
			slices.SortFunc(lqs, func(a, b kueue.LocalQueue) int {
				switch {
				case a.Name < b.Name:
					return -1
				case a.Name > b.Name:
					return 1
				}
				return 0
			})
			in.LocalQueues = lqs
		}
	}
	return in, nil
}

// ErrKueueNotServed is returned when the cluster serves no Kueue API.
var ErrKueueNotServed = errors.New("the cluster does not serve Kueue's API (kueue.x-k8s.io/v1beta2 or v1beta1): Kueue is not installed there")

// FetchPlanned reads, as the caller, the queue objects a planned Workload
// (diagnose.PlannedWorkload of job, not in the cluster) is judged against:
// its LocalQueue, the LocalQueue's ClusterQueue, its flavors and cohort
// tree, and the namespace when the ClusterQueue's selector tests its
// labels, with the same requests and Gaps as a pending Workload's
// Snapshot, less the ones about the Workload itself (the visibility API's
// position, a preemptor, Pods and events). Nothing is written.
func (f *Fetcher) FetchPlanned(ctx context.Context, job *unstructured.Unstructured, wl *kueue.Workload, p *diagnose.Planned) (*diagnose.Snapshot, error) {
	if f.Kube == nil || f.Kueue == nil {
		return nil, errors.New("fetch: Fetcher needs Kube and Kueue clients")
	}
	if wl == nil || wl.Namespace == "" || wl.Spec.QueueName == "" {
		return nil, fmt.Errorf("%w: a planned Workload needs a namespace and a LocalQueue", ErrBadTarget)
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	src := &liveSource{f: f}
	c := &collector{src: src, planned: true, s: &diagnose.Snapshot{
		Now:      now(),
		Target:   diagnose.Target{Kind: job.GetKind(), Namespace: wl.Namespace, Name: job.GetName()},
		Job:      job,
		Workload: wl,
		Planned:  p,
	}}
	served, err := src.kueueServed(ctx)
	if err != nil && !isAnswer(err) {
		if fatal(ctx, err) {
			return nil, stop(ctx, err)
		}
		return nil, c.readError(kindDiscovery, "", "kueue.x-k8s.io", err)
	}
	if !served {
		return nil, ErrKueueNotServed
	}
	if err := c.queues(ctx, wl); err != nil {
		return nil, err
	}
	if c.s.LocalQueue == nil && c.first != nil {
		return nil, c.first // the cluster did not answer the first read
	}
	return c.s, nil
}
