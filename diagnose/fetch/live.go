package fetch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	visibilityv1beta1 "sigs.k8s.io/kueue/apis/visibility/v1beta1"
	visibility "sigs.k8s.io/kueue/apis/visibility/v1beta2"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// DefaultTimeout is the per-request timeout when Fetcher.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Fetcher reads a Snapshot from the API server. Kube, Kueue and Dynamic act
// as the caller (impersonated); only ClusterScoped, when set, acts as the bot.
// A Fetcher may be shared by concurrent Fetch calls.
//
// Request budget per Fetch, by the state of the Workload (API requests,
// measured with the fake clientsets in TestFetchPendingJob, TestFetchStates,
// TestFetchGaps and BenchmarkFetchRequests; no request ever lists
// Workloads beyond one namespace and one job-uid label):
//
//   - Target missing, forbidden or unreadable: 1 (the job GET).
//   - Job without a Workload: job GET, Workload GET by computed name,
//     Workload LIST by label kueue.x-k8s.io/job-uid in the namespace = 3,
//     plus, when the job has a queue-name label, its events LIST (Kueue's
//     ErrWorkloadCompose), a WorkloadPriorityClass GET when it names one,
//     its pod group's Pods LIST for a grouped Pod, and the LocalQueue GET
//     (and what follows).
//   - Pending (no quota reserved): 8 — job GET, Workload GET, LocalQueue GET,
//     ClusterQueue GET, ResourceFlavors (a GET for one flavor, else one
//     LIST), ClusterQueue LIST and Cohort LIST (only when the ClusterQueue
//     has a cohort; 6 without), and the LocalQueue's pendingworkloads from
//     the visibility API. +1 Workload LIST when the computed name misses;
//     +1 Namespace GET only when the ClusterQueue's namespaceSelector tests
//     labels other than kubernetes.io/metadata.name (nil matches nothing
//     and {} matches all, whatever the labels). Events are not read: the
//     Workload's conditions carry Kueue's message.
//   - Quota reserved, admission checks not all Ready: job, Workload,
//     LocalQueue, ClusterQueue, flavors, AdmissionChecks (GET or LIST) = 6.
//   - Admitted: job, Workload, LocalQueue, ClusterQueue, flavors, Pods LIST
//     (label selector, at most 500), then events — one LIST per involved
//     object with an involvedObject field selector, at most 50 each — for
//     the job, the Workload and at most 2 Pods that are not running
//     = at most 10.
//   - Preempted and waiting: +1, a Workload LIST by the job-uid label that
//     Kueue's preemption message names (to name the preemptor).
//   - Finished: 2 (job, Workload).
//
// The objects that name what blocks (objects.go) add at most 4 requests to
// a pending Workload and at most 4 to an admitted one, each only in the
// state that needs it, never one per pod or workload (TestFetchNamingObjects):
//
//   - Pending: +1 LimitRange LIST of the namespace when a container of the
//     pod sets asks for no cpu or no memory; +1 RuntimeClass GET (LIST for
//     several) when a pod set names one; when Kueue's message says the
//     pods do not fit the topology of a flavor with a topologyName, +1
//     Topology GET (LIST for several) and +1 Node LIST (label selector:
//     the flavor's nodeLabels; at most 500, kept slim).
//   - A ClusterQueue with a MultiKueue AdmissionCheck, when the checks are
//     read: +1 MultiKueueConfig GET (LIST for several) and +1
//     MultiKueueCluster LIST. The checks are read for an admitted Workload
//     too when MultiKueue placed it on workers (status.clusterName or
//     nominatedClusterNames): +3 (AdmissionCheck GET and those two); its
//     job has no pods on the manager, so no Pod-state reads follow.
//   - Admitted: +2 when the job controller reports a FailedCreate (the
//     namespace's ResourceQuota LIST and LimitRange LIST); +1
//     PersistentVolumeClaim LIST when a pending, unscheduled pod uses
//     claims; +1 Node LIST (the assigned flavor's nodeLabels as label
//     selector, at most 500, kept slim) when kube-scheduler refuses a pod
//     for a taint or a node selector. So at most 14 for an admitted job.
//
// A Forbidden read of these is a Gap that says what could not be checked
// and who can (Nodes, RuntimeClasses, Topologies and MultiKueue objects are
// cluster-scoped: the platform team); a NotFound LIST is nothing to name.
//
// Discovery comes on top and is cached for the Fetcher's lifetime: the
// first Fetch asks once which Kueue version is served
// (kueue.x-k8s.io/v1beta2, else v1beta1, read through KueueV1beta1 and
// converted), and, for kinds other than Job, Pod and Workload, whether the
// kind's group/version is served (a kind that is not is reported like a
// missing job).
type Fetcher struct {
	// Kube reads core and batch objects as the caller.
	Kube kubernetes.Interface
	// Kueue reads Kueue objects and the visibility API as the caller.
	Kueue versioned.Interface
	// Dynamic reads job kinds other than batch Job and Pod as the caller.
	Dynamic dynamic.Interface
	// ClusterScoped is optional: the bot's identity for ClusterQueue,
	// ResourceFlavor and cohort reads in clusterScopedReads=bot mode. It is
	// used only after the caller's own LocalQueue read succeeded, and only
	// for that LocalQueue's ClusterQueue, its flavors and its cohort, and
	// for the WorkloadPriorityClass a job without a Workload names.
	ClusterScoped versioned.Interface
	// KueueConfig is optional: it reads Kueue's own Configuration with the
	// bot's identity (KueueConfigMap), for a job without a Workload, to
	// tell an integration that is not enabled or a namespace Kueue does
	// not manage. One request, cached by the reader.
	KueueConfig func(context.Context) (*diagnose.KueueConfig, error)
	// Timeout bounds each request; DefaultTimeout when zero.
	Timeout time.Duration
	// Now is the clock for Snapshot.Now; time.Now when nil.
	Now func() time.Time

	mu        sync.Mutex
	discovery map[string]discoveryResult
}

type discoveryResult struct {
	resources []string
	served    bool
}

// Fetch reads the Snapshot for t as the caller. Reads that fail become
// Gaps; Fetch fails only when the cluster cannot be reached at all (the
// first request fails in transport) or ctx ends.
func (f *Fetcher) Fetch(ctx context.Context, t diagnose.Target) (*diagnose.Snapshot, error) {
	if f.Kube == nil || f.Kueue == nil {
		return nil, errors.New("fetch: Fetcher needs Kube and Kueue clients")
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	src := &liveSource{f: f}
	return collect(ctx, src, t, now())
}

// liveSource reads through the API server.
type liveSource struct {
	f        *Fetcher
	requests int
	bot      bool
	// tripped is the first fault that showed the server is not answering;
	// later requests are skipped.
	tripped *fault
	// kueueVersion is "v1beta2", "v1beta1" or "" (not served); set by
	// kueueServed.
	kueueVersion string
}

var _ source = (*liveSource)(nil)

// do runs one request with the per-request timeout. A failure that is not
// the server's answer about the object (NotFound, Forbidden, Unauthorized)
// comes back as a *fault; one that shows the server is not answering at all
// (timeout, connection, TLS) trips the source, and every later request is
// then skipped instead of waiting for its own timeout.
func do[T any](ctx context.Context, s *liveSource, call func(context.Context) (T, error)) (T, error) {
	return doRequest(ctx, s, true, call)
}

// doAside is do for a read served by another backend than the API server
// itself (Kueue's visibility API, an aggregated API): its faults do not
// trip the source.
func doAside[T any](ctx context.Context, s *liveSource, call func(context.Context) (T, error)) (T, error) {
	return doRequest(ctx, s, false, call)
}

func doRequest[T any](ctx context.Context, s *liveSource, trip bool, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if s.tripped != nil {
		return zero, &skipped{first: s.tripped}
	}
	timeout := s.f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s.requests++
	v, err := call(rctx)
	if err == nil {
		return v, nil
	}
	// Typed clients return an empty object with an error; never let that
	// pass for a read object.
	switch {
	case ctx.Err() != nil:
		return zero, ctx.Err()
	case impersonationRefused(err):
		return zero, fmt.Errorf("%w: %w", ErrImpersonation, err)
	}
	if f := classify(err, timeout); f != nil {
		if trip && f.trips() {
			s.tripped = f
		}
		return zero, f
	}
	return zero, err
}

func (s *liveSource) exhaustive() bool { return false }

func (s *liveSource) useBot() bool {
	s.bot = s.f.ClusterScoped != nil
	return s.bot
}

func (s *liveSource) clusterClient() versioned.Interface {
	if s.bot {
		return s.f.ClusterScoped
	}
	return s.f.Kueue
}

// groupVersion asks discovery (cached) whether gv is served and with which
// resources.
func (s *liveSource) groupVersion(ctx context.Context, gv string) (discoveryResult, error) {
	s.f.mu.Lock()
	r, ok := s.f.discovery[gv]
	s.f.mu.Unlock()
	if ok {
		return r, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*metav1.APIResourceList, error) {
		dc := s.f.Kube.Discovery()
		rc := dc.RESTClient()
		if rc == nil {
			return dc.ServerResourcesForGroupVersion(gv) // fakes
		}
		// What ServerResourcesForGroupVersion does, bounded by ctx.
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		list := &metav1.APIResourceList{}
		if err := rc.Get().AbsPath(path).Do(ctx).Into(list); err != nil {
			return nil, err
		}
		list.GroupVersion = gv
		return list, nil
	})
	switch {
	case err == nil:
		r = discoveryResult{served: true}
		for _, res := range list.APIResources {
			r.resources = append(r.resources, res.Name)
		}
	case apierrors.IsNotFound(err):
		r = discoveryResult{}
	default:
		return discoveryResult{}, err
	}
	s.f.mu.Lock()
	if s.f.discovery == nil {
		s.f.discovery = map[string]discoveryResult{}
	}
	s.f.discovery[gv] = r
	s.f.mu.Unlock()
	return r, nil
}

func (s *liveSource) served(ctx context.Context, k *kinds.Kind) (bool, error) {
	if k.Resource.Group == "" || k.Resource.Group == "batch" || k.Resource.Group == "apps" {
		return true, nil
	}
	r, err := s.groupVersion(ctx, k.Resource.GroupVersion().String())
	if err != nil {
		// Unknown: the collector decides whether to try the read.
		return true, err
	}
	return r.served && slices.Contains(r.resources, k.Resource.Resource), nil
}

func (s *liveSource) kueueServed(ctx context.Context) (bool, error) {
	if s.kueueVersion != "" {
		return true, nil
	}
	for _, v := range []string{"v1beta2", "v1beta1"} {
		r, err := s.groupVersion(ctx, kueue.GroupVersion.Group+"/"+v)
		if err != nil {
			// Discovery refused or failed: assume the current version; the
			// collector decides whether to go on.
			s.kueueVersion = "v1beta2"
			return true, err
		}
		if r.served {
			s.kueueVersion = v
			return true, nil
		}
	}
	return false, nil
}

func (s *liveSource) v1beta1() bool { return s.kueueVersion == "v1beta1" }

func (s *liveSource) getObject(ctx context.Context, k *kinds.Kind, ns, name string) (*unstructured.Unstructured, error) {
	switch k.Kind {
	case "Job":
		job, err := do(ctx, s, func(ctx context.Context) (any, error) {
			return s.f.Kube.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return typedToUnstructured(job, k)
	case "Pod":
		pod, err := do(ctx, s, func(ctx context.Context) (any, error) {
			return s.f.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return typedToUnstructured(pod, k)
	case kinds.StatefulSet:
		sts, err := do(ctx, s, func(ctx context.Context) (any, error) {
			return s.f.Kube.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return typedToUnstructured(sts, k)
	case kinds.Deployment:
		d, err := do(ctx, s, func(ctx context.Context) (any, error) {
			return s.f.Kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return typedToUnstructured(d, k)
	}
	if s.f.Dynamic == nil {
		return nil, apierrors.NewNotFound(k.Resource.GroupResource(), name)
	}
	return do(ctx, s, func(ctx context.Context) (*unstructured.Unstructured, error) {
		return s.f.Dynamic.Resource(k.Resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

func typedToUnstructured(obj any, k *kinds.Kind) (*unstructured.Unstructured, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u.SetGroupVersionKind(k.GroupVersionKind())
	return u, nil
}

func (s *liveSource) getWorkload(ctx context.Context, ns, name string) (*kueue.Workload, error) {
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.Workload, error) {
			return s.f.Kueue.KueueV1beta1().Workloads(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return workloadFromV1beta1(old)
	}
	return do(ctx, s, func(ctx context.Context) (*kueue.Workload, error) {
		return s.f.Kueue.KueueV1beta2().Workloads(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

func (s *liveSource) workloadsForOwner(ctx context.Context, ns string, uid types.UID) ([]kueue.Workload, error) {
	opts := metav1.ListOptions{LabelSelector: JobUIDLabel + "=" + string(uid)}
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.WorkloadList, error) {
			return s.f.Kueue.KueueV1beta1().Workloads(ns).List(ctx, opts)
		})
		if err != nil {
			return nil, err
		}
		out := make([]kueue.Workload, 0, len(old.Items))
		for i := range old.Items {
			wl, err := workloadFromV1beta1(&old.Items[i])
			if err != nil {
				return nil, err
			}
			out = append(out, *wl)
		}
		return out, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.WorkloadList, error) {
		return s.f.Kueue.KueueV1beta2().Workloads(ns).List(ctx, opts)
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (s *liveSource) getLocalQueue(ctx context.Context, ns, name string) (*kueue.LocalQueue, error) {
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.LocalQueue, error) {
			return s.f.Kueue.KueueV1beta1().LocalQueues(ns).Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return localQueueFromV1beta1(old)
	}
	return do(ctx, s, func(ctx context.Context) (*kueue.LocalQueue, error) {
		return s.f.Kueue.KueueV1beta2().LocalQueues(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

func (s *liveSource) listLocalQueues(ctx context.Context, ns string) ([]kueue.LocalQueue, error) {
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.LocalQueueList, error) {
			return s.f.Kueue.KueueV1beta1().LocalQueues(ns).List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		return convertAll(old.Items, localQueueFromV1beta1)
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.LocalQueueList, error) {
		return s.f.Kueue.KueueV1beta2().LocalQueues(ns).List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (s *liveSource) getClusterQueue(ctx context.Context, name string) (*kueue.ClusterQueue, error) {
	cs := s.clusterClient()
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.ClusterQueue, error) {
			return cs.KueueV1beta1().ClusterQueues().Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return clusterQueueFromV1beta1(old)
	}
	return do(ctx, s, func(ctx context.Context) (*kueue.ClusterQueue, error) {
		return cs.KueueV1beta2().ClusterQueues().Get(ctx, name, metav1.GetOptions{})
	})
}

func (s *liveSource) listClusterQueues(ctx context.Context) ([]kueue.ClusterQueue, error) {
	cs := s.clusterClient()
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.ClusterQueueList, error) {
			return cs.KueueV1beta1().ClusterQueues().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		return convertAll(old.Items, clusterQueueFromV1beta1)
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.ClusterQueueList, error) {
		return cs.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (s *liveSource) listCohorts(ctx context.Context) ([]kueue.Cohort, error) {
	cs := s.clusterClient()
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.CohortList, error) {
			return cs.KueueV1beta1().Cohorts().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		return convertAll(old.Items, cohortFromV1beta1)
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.CohortList, error) {
		return cs.KueueV1beta2().Cohorts().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// convertAll converts a list item by item.
func convertAll[In, Out any](in []In, conv func(*In) (*Out, error)) ([]Out, error) {
	out := make([]Out, 0, len(in))
	for i := range in {
		o, err := conv(&in[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *o)
	}
	return out, nil
}

// pick keeps the items whose name is in names, in the order of names.
func pick[T any](items []T, name func(*T) string, names []string) []T {
	var out []T
	for _, n := range names {
		for i := range items {
			if name(&items[i]) == n {
				out = append(out, items[i])
				break
			}
		}
	}
	return out
}

// getFlavors reads one flavor with a GET, several with one LIST: either way
// one request.
func (s *liveSource) getFlavors(ctx context.Context, names []string) ([]kueue.ResourceFlavor, error) {
	cs := s.clusterClient()
	if len(names) == 1 {
		var rf *kueue.ResourceFlavor
		var err error
		if s.v1beta1() {
			var old *kueuev1beta1.ResourceFlavor
			if old, err = do(ctx, s, func(ctx context.Context) (*kueuev1beta1.ResourceFlavor, error) {
				return cs.KueueV1beta1().ResourceFlavors().Get(ctx, names[0], metav1.GetOptions{})
			}); err == nil {
				rf, err = flavorFromV1beta1(old)
			}
		} else {
			rf, err = do(ctx, s, func(ctx context.Context) (*kueue.ResourceFlavor, error) {
				return cs.KueueV1beta2().ResourceFlavors().Get(ctx, names[0], metav1.GetOptions{})
			})
		}
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []kueue.ResourceFlavor{*rf}, nil
	}
	var items []kueue.ResourceFlavor
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.ResourceFlavorList, error) {
			return cs.KueueV1beta1().ResourceFlavors().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		if items, err = convertAll(old.Items, flavorFromV1beta1); err != nil {
			return nil, err
		}
	} else {
		list, err := do(ctx, s, func(ctx context.Context) (*kueue.ResourceFlavorList, error) {
			return cs.KueueV1beta2().ResourceFlavors().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		items = list.Items
	}
	return pick(items, func(rf *kueue.ResourceFlavor) string { return rf.Name }, names), nil
}

// getAdmissionChecks reads checks as the caller (they are not part of the
// bot's clusterScopedReads), one GET for one check, else one LIST.
func (s *liveSource) getAdmissionChecks(ctx context.Context, names []string) ([]kueue.AdmissionCheck, error) {
	cs := s.f.Kueue
	var items []kueue.AdmissionCheck
	switch {
	case s.v1beta1():
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.AdmissionCheckList, error) {
			return cs.KueueV1beta1().AdmissionChecks().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		if items, err = convertAll(old.Items, admissionCheckFromV1beta1); err != nil {
			return nil, err
		}
	case len(names) == 1:
		ac, err := do(ctx, s, func(ctx context.Context) (*kueue.AdmissionCheck, error) {
			return cs.KueueV1beta2().AdmissionChecks().Get(ctx, names[0], metav1.GetOptions{})
		})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []kueue.AdmissionCheck{*ac}, nil
	default:
		list, err := do(ctx, s, func(ctx context.Context) (*kueue.AdmissionCheckList, error) {
			return cs.KueueV1beta2().AdmissionChecks().List(ctx, metav1.ListOptions{})
		})
		if err != nil {
			return nil, err
		}
		items = list.Items
	}
	return pick(items, func(ac *kueue.AdmissionCheck) string { return ac.Name }, names), nil
}

// pending asks the visibility API for the Workload's LocalQueue.
func (s *liveSource) pending(ctx context.Context, wl *kueue.Workload, _ string) (*diagnose.Position, []diagnose.QueuedWorkload, error) {
	ns, lq := wl.Namespace, string(wl.Spec.QueueName)
	var items []queued
	if s.v1beta1() {
		sum, err := doAside(ctx, s, func(ctx context.Context) (*visibilityv1beta1.PendingWorkloadsSummary, error) {
			return s.f.Kueue.VisibilityV1beta1().LocalQueues(ns).GetPendingWorkloadsSummary(ctx, lq, metav1.GetOptions{})
		})
		if err != nil {
			return nil, nil, err
		}
		if items, err = queuedFromV1beta1(sum); err != nil {
			return nil, nil, err
		}
	} else {
		sum, err := doAside(ctx, s, func(ctx context.Context) (*visibility.PendingWorkloadsSummary, error) {
			return s.f.Kueue.VisibilityV1beta2().LocalQueues(ns).GetPendingWorkloadsSummary(ctx, lq, metav1.GetOptions{})
		})
		if err != nil {
			return nil, nil, err
		}
		items = queuedFromV1beta2(sum)
	}
	pos, ahead := positionIn(items, wl)
	return pos, ahead, nil
}

func (s *liveSource) listPods(ctx context.Context, ns, selector string, _ types.UID) ([]corev1.Pod, error) {
	if selector == "" {
		return nil, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.PodList, error) {
		return s.f.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: maxPods})
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (s *liveSource) listEvents(ctx context.Context, ns string, ref corev1.ObjectReference) ([]corev1.Event, error) {
	sel := fields.Set{"involvedObject.kind": ref.Kind, "involvedObject.name": ref.Name}
	if ref.UID != "" {
		sel["involvedObject.uid"] = string(ref.UID)
	}
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.EventList, error) {
		return s.f.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: fields.SelectorFromSet(sel).String(),
			Limit:         maxEventsPerObject,
		})
	})
	if err != nil {
		return nil, err
	}
	// Field selectors are not honoured everywhere (fakes, some proxies):
	// keep only what is about ref.
	var out []corev1.Event
	for _, e := range list.Items {
		if involves(&e, ref) {
			out = append(out, e)
		}
	}
	return out, nil
}

// involves reports whether the event is about ref.
func involves(e *corev1.Event, ref corev1.ObjectReference) bool {
	io := e.InvolvedObject
	if ref.UID != "" && io.UID != "" {
		return io.UID == ref.UID
	}
	return io.Kind == ref.Kind && io.Name == ref.Name
}

func (s *liveSource) getNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return do(ctx, s, func(ctx context.Context) (*corev1.Namespace, error) {
		return s.f.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	})
}

func (s *liveSource) getPriorityClass(ctx context.Context, name string) (*kueue.WorkloadPriorityClass, error) {
	cs := s.clusterClient()
	if s.v1beta1() {
		old, err := do(ctx, s, func(ctx context.Context) (*kueuev1beta1.WorkloadPriorityClass, error) {
			return cs.KueueV1beta1().WorkloadPriorityClasses().Get(ctx, name, metav1.GetOptions{})
		})
		if err != nil {
			return nil, err
		}
		return priorityClassFromV1beta1(old)
	}
	return do(ctx, s, func(ctx context.Context) (*kueue.WorkloadPriorityClass, error) {
		return cs.KueueV1beta2().WorkloadPriorityClasses().Get(ctx, name, metav1.GetOptions{})
	})
}
