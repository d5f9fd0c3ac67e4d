package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
	kueuev1beta1 "sigs.k8s.io/kueue/apis/kueue/v1beta1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Clients are what ListInto reads through, all acting as one identity (for
// a digest, the impersonated digest identity; see rbac.ClientsFor).
type Clients struct {
	Kube  kubernetes.Interface
	Kueue versioned.Interface
	// Dynamic reads the job kinds other than batch Job; optional.
	Dynamic dynamic.Interface
	// ClusterScoped, when set (clusterScopedReads: bot), lists the
	// cluster-scoped quota kinds (ClusterQueues, ResourceFlavors, Cohorts,
	// and WorkloadPriorityClasses when needed) as the bot; AdmissionChecks are listed as
	// the caller, as a single question reads them. Snapshots of
	// the store then read only the ClusterQueue their own LocalQueue names,
	// as a single question does (Snapshot.ClusterScopedByBot).
	ClusterScoped versioned.Interface
}

// ListOptions says what ListInto reads.
type ListOptions struct {
	// Namespaces are listed one by one (one LIST per kind and namespace,
	// for an identity whose RBAC is per namespace); empty lists every
	// namespaced kind once, cluster-wide.
	Namespaces []string
	// Jobs lists every job kind of Kinds the cluster serves (batch Jobs,
	// JobSets, RayJobs, ...), so Snapshots of jobs have their job object.
	Jobs bool
	// Pods and Events list Pods and core Events, which admitted jobs'
	// scheduling verdicts read. A Snapshot that needs what was not listed
	// carries an Unavailable Gap.
	Pods, Events bool
	// PageSize is the LIST page size (limit/continue); 500 when zero.
	PageSize int64
	// Timeout bounds each request; DefaultTimeout when zero.
	Timeout time.Duration
	// Concurrency bounds the LISTs in flight; 4 when zero.
	Concurrency int
	// WorkloadsOnly lists nothing but Kueue v1beta2 Workloads (one
	// paginated LIST per namespace, or one cluster-wide), with no
	// discovery: what an estimate of one job reads beyond the job's own
	// Snapshot (the ClusterQueue's admitted, pending and finished
	// Workloads). The other options but PageSize, Timeout and
	// Concurrency are ignored.
	WorkloadsOnly bool
}

// ListStats is what ListInto did.
type ListStats struct {
	// Requests counts every API request: discovery, and each page of
	// each LIST.
	Requests int
	// Objects counts the objects added to the store.
	Objects int
	// Failed are the LISTs that failed (Forbidden, timed out, not
	// served); Snapshots that need what they would have read carry the
	// same Gap a live read would.
	Failed []ListFailure
}

// ListFailure is one LIST that failed.
type ListFailure struct {
	// Resource is e.g. "workloads" or "jobsets.jobset.x-k8s.io".
	Resource string
	// Namespace is empty for a cluster-wide or cluster-scoped LIST.
	Namespace string
	Err       error
}

func (f ListFailure) String() string {
	where := "cluster-wide"
	if f.Namespace != "" {
		where = "in " + f.Namespace
	}
	return fmt.Sprintf("list %s %s: %v", f.Resource, where, f.Err)
}

// ListInto fills the store with paginated LISTs (client-go tools/pager) of
// Workloads, LocalQueues, ClusterQueues, ResourceFlavors, Cohorts and
// AdmissionChecks (and WorkloadPriorityClasses when a job without a
// Workload names one), and as opts asks of the job kinds, Pods and Events; and
// of Namespaces when a ClusterQueue's namespaceSelector tests labels. The
// cost is a handful of requests per namespace (or per kind, cluster-wide),
// whatever the number of Workloads: the cluster's Kueue version is asked
// once (v1beta2, else v1beta1, converted), the served job kinds once per
// group version.
//
// A LIST that fails is recorded in the store and in the stats, not
// returned: ListInto returns an error only when the cluster cannot be
// reached at all, the API server refuses the impersonation, or ctx ends.
func (s *Store) ListInto(ctx context.Context, c Clients, opts ListOptions) (*ListStats, error) {
	if c.Kube == nil || c.Kueue == nil {
		return nil, errors.New("fetch: ListInto needs Kube and Kueue clients")
	}
	l := &lister{st: s, c: c, opts: opts, stats: &ListStats{}}
	if l.opts.PageSize <= 0 {
		l.opts.PageSize = 500
	}
	if l.opts.Timeout <= 0 {
		l.opts.Timeout = DefaultTimeout
	}
	if l.opts.Concurrency <= 0 {
		l.opts.Concurrency = 4
	}
	err := l.run(ctx)
	l.stats.Requests = int(l.requests.Load())
	slices.SortFunc(l.stats.Failed, func(a, b ListFailure) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Namespace, b.Namespace))
	})
	return l.stats, err
}

type lister struct {
	st       *Store
	c        Clients
	opts     ListOptions
	requests atomic.Int64

	mu    sync.Mutex
	stats *ListStats
}

// listTask is one paginated LIST.
type listTask struct {
	resource  string
	namespace string
	page      pager.ListPageFunc
}

// scopes are the namespaces namespaced kinds are listed in ("" = all).
func (l *lister) scopes() []string {
	if len(l.opts.Namespaces) == 0 {
		return []string{""}
	}
	return l.opts.Namespaces
}

// call runs one request with the per-request timeout, counting it.
func (l *lister) call(ctx context.Context, fn func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	first := l.requests.Add(1) == 1
	err := fn(rctx)
	switch {
	case err == nil:
		return nil
	case impersonationRefused(err):
		return fmt.Errorf("%w: %w", ErrImpersonation, err)
	case first && classify(err, l.opts.Timeout) != nil:
		// The first request failing with a fault of the cluster (not an
		// answer such as Forbidden): nothing else will work either.
		return fmt.Errorf("%w: %w", errListUnreachable, err)
	}
	return err
}

func (l *lister) fatal(ctx context.Context, err error) bool {
	return errors.Is(err, errListUnreachable) || errors.Is(err, ErrImpersonation) || ctx.Err() != nil
}

// served asks discovery which resources a group version serves (nil: not
// served).
func (l *lister) served(ctx context.Context, gv string) ([]string, error) {
	var list *metav1.APIResourceList
	err := l.call(ctx, func(context.Context) error {
		var err error
		list, err = l.c.Kube.Discovery().ServerResourcesForGroupVersion(gv)
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.APIResources))
	for _, r := range list.APIResources {
		names = append(names, r.Name)
	}
	return names, nil
}

func (l *lister) run(ctx context.Context) error {
	if l.opts.WorkloadsOnly {
		var tasks []listTask
		for _, t := range l.kueueTasks("v1beta2") {
			if t.resource == resWorkloads {
				tasks = append(tasks, t)
			}
		}
		return l.runAll(ctx, tasks)
	}
	version := "v1beta2"
	res, err := l.served(ctx, kueue.GroupVersion.String())
	if err != nil && l.fatal(ctx, err) {
		return err
	}
	if err == nil && res == nil {
		if res, err = l.served(ctx, kueuev1beta1.GroupVersion.String()); err != nil && l.fatal(ctx, err) {
			return err
		}
		if err == nil && res != nil {
			version = "v1beta1"
		}
	}
	var tasks []listTask
	kueueServed := err != nil || res != nil
	if !kueueServed {
		notServed := apierrors.NewServiceUnavailable("the cluster does not serve Kueue's API (kueue.x-k8s.io)")
		l.st.mu.Lock()
		l.st.kueueNotServed = true
		l.st.mu.Unlock()
		for _, r := range []string{resWorkloads, resLocalQueues, resClusterQueues, resFlavors, resCohorts, resAdmissionChecks} {
			l.fail(r, "", notServed)
		}
	} else {
		tasks = append(tasks, l.kueueTasks(version)...)
	}
	tasks = append(tasks, l.coreTasks()...)
	if l.opts.Jobs {
		jt, err := l.jobTasks(ctx)
		if err != nil {
			return err
		}
		tasks = append(tasks, jt...)
	}
	if err := l.runAll(ctx, tasks); err != nil {
		return err
	}
	if kueueServed && l.opts.Jobs && l.st.namesUnknownPriorityClass() {
		// A job without a Workload names a WorkloadPriorityClass: one
		// LIST of the classes says whether it exists (Kueue makes no
		// Workload when it does not), as a single question's GET does.
		// Only then: an identity that may not read them is not refused
		// on every digest.
		if err := l.runAll(ctx, []listTask{l.priorityClassTask(version)}); err != nil {
			return err
		}
	}
	return l.namespaces(ctx)
}

// kueueTasks lists Kueue's objects in the served version: the namespaced
// ones as the caller, the cluster-scoped ones as the caller or, with
// Clients.ClusterScoped, as the bot.
func (l *lister) kueueTasks(version string) []listTask {
	k := l.c.Kueue
	v1 := version == "v1beta1"
	var tasks []listTask
	for _, ns := range l.scopes() {
		tasks = append(tasks,
			listTask{resWorkloads, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				if v1 {
					return k.KueueV1beta1().Workloads(ns).List(ctx, o)
				}
				return k.KueueV1beta2().Workloads(ns).List(ctx, o)
			}},
			listTask{resLocalQueues, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				if v1 {
					return k.KueueV1beta1().LocalQueues(ns).List(ctx, o)
				}
				return k.KueueV1beta2().LocalQueues(ns).List(ctx, o)
			}})
	}
	cs := k
	if l.c.ClusterScoped != nil {
		cs = l.c.ClusterScoped
		l.st.mu.Lock()
		l.st.clusterScopedByBot = true
		l.st.mu.Unlock()
	}
	return append(tasks,
		listTask{resClusterQueues, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			if v1 {
				return cs.KueueV1beta1().ClusterQueues().List(ctx, o)
			}
			return cs.KueueV1beta2().ClusterQueues().List(ctx, o)
		}},
		listTask{resFlavors, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			if v1 {
				return cs.KueueV1beta1().ResourceFlavors().List(ctx, o)
			}
			return cs.KueueV1beta2().ResourceFlavors().List(ctx, o)
		}},
		listTask{resCohorts, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			if v1 {
				return cs.KueueV1beta1().Cohorts().List(ctx, o)
			}
			return cs.KueueV1beta2().Cohorts().List(ctx, o)
		}},
		listTask{resAdmissionChecks, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			if v1 {
				return k.KueueV1beta1().AdmissionChecks().List(ctx, o)
			}
			return k.KueueV1beta2().AdmissionChecks().List(ctx, o)
		}},
	)
}

// priorityClassTask lists the WorkloadPriorityClasses, as the bot with
// Clients.ClusterScoped (as a single question reads the class).
func (l *lister) priorityClassTask(version string) listTask {
	cs := l.c.Kueue
	if l.c.ClusterScoped != nil {
		cs = l.c.ClusterScoped
	}
	return listTask{resPriorityClasses, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		if version == "v1beta1" {
			return cs.KueueV1beta1().WorkloadPriorityClasses().List(ctx, o)
		}
		return cs.KueueV1beta2().WorkloadPriorityClasses().List(ctx, o)
	}}
}

// coreTasks lists Pods and Events when asked; when not, Snapshots learn
// that they were not read.
func (l *lister) coreTasks() []listTask {
	var tasks []listTask
	for _, ns := range l.scopes() {
		if l.opts.Pods {
			tasks = append(tasks, listTask{resPods, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return l.c.Kube.CoreV1().Pods(ns).List(ctx, o)
			}})
		} else {
			l.st.recordList(resPods, ns, errNotRead)
		}
		if l.opts.Events {
			tasks = append(tasks, listTask{resEvents, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return l.c.Kube.CoreV1().Events(ns).List(ctx, o)
			}})
		} else {
			l.st.recordList(resEvents, ns, errNotRead)
		}
	}
	return tasks
}

// jobTasks lists each served job kind; Pods are listed by coreTasks and
// Workloads by kueueTasks.
func (l *lister) jobTasks(ctx context.Context) ([]listTask, error) {
	servedBy := map[string][]string{}
	var tasks []listTask
	for _, k := range jobKinds() {
		resource := jobResource(&k)
		if k.Resource.Group == "batch" {
			for _, ns := range l.scopes() {
				tasks = append(tasks, listTask{resource, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					return l.c.Kube.BatchV1().Jobs(ns).List(ctx, o)
				}})
			}
			continue
		}
		if l.c.Dynamic == nil {
			l.fail(resource, "", errNotRead)
			continue
		}
		gv := k.Resource.GroupVersion().String()
		names, seen := servedBy[gv]
		if !seen {
			var err error
			if names, err = l.served(ctx, gv); err != nil {
				if l.fatal(ctx, err) {
					return nil, err
				}
				l.fail(resource, "", err)
				continue
			}
			servedBy[gv] = names
		}
		if !slices.Contains(names, k.Resource.Resource) {
			// Not installed: its jobs cannot exist, as a live read
			// would find.
			continue
		}
		gvr := k.Resource
		for _, ns := range l.scopes() {
			tasks = append(tasks, listTask{resource, ns, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return l.c.Dynamic.Resource(gvr).Namespace(ns).List(ctx, o)
			}})
		}
	}
	return tasks, nil
}

// namespaces lists the Namespace objects when a ClusterQueue's
// namespaceSelector tests their labels: one cluster-wide LIST, or, when
// that is refused and the namespaces are known, a GET of each.
func (l *lister) namespaces(ctx context.Context) error {
	needed := false
	for _, cq := range l.st.ClusterQueues() {
		needed = needed || diagnose.SelectorNeedsLabels(cq.Spec.NamespaceSelector)
	}
	if !needed {
		return nil
	}
	fallback := len(l.opts.Namespaces) > 0
	err := l.list(ctx, listTask{resNamespaces, "", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return l.c.Kube.CoreV1().Namespaces().List(ctx, o)
	}}, !fallback)
	switch {
	case err != nil && l.fatal(ctx, err):
		return err
	case err == nil || !fallback:
		return nil
	}
	for _, name := range l.opts.Namespaces {
		err := l.call(ctx, func(ctx context.Context) error {
			n, err := l.c.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				err = l.st.AddObjects(n)
				l.mu.Lock()
				l.stats.Objects++
				l.mu.Unlock()
			}
			return err
		})
		if err != nil {
			if l.fatal(ctx, err) {
				return err
			}
			l.fail(resNamespaces, name, err)
		}
	}
	return nil
}

// runAll runs the tasks, a few at a time. The first fatal error cancels
// the rest and is returned.
func (l *lister) runAll(ctx context.Context, tasks []listTask) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, l.opts.Concurrency)
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if err := l.list(ctx, t, true); err != nil && l.fatal(ctx, err) {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// list runs one paginated LIST and adds what it returned, or records its
// failure (when record is true) and returns the error.
func (l *lister) list(ctx context.Context, t listTask, record bool) error {
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		var obj runtime.Object
		err := l.call(ctx, func(rctx context.Context) error {
			var err error
			obj, err = t.page(rctx, o)
			return err
		})
		return obj, err
	})
	p.PageSize = l.opts.PageSize
	var entries []entry
	err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		e, keep, err := entryFor(obj)
		if err != nil {
			return err
		}
		if keep {
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		if record && !l.fatal(ctx, err) {
			l.fail(t.resource, t.namespace, err)
		}
		return err
	}
	l.st.addEntries(entries)
	l.st.recordList(t.resource, t.namespace, nil)
	l.mu.Lock()
	l.stats.Objects += len(entries)
	l.mu.Unlock()
	return nil
}

// fail records a failed LIST.
func (l *lister) fail(resource, ns string, err error) {
	l.st.recordList(resource, ns, err)
	l.mu.Lock()
	l.stats.Failed = append(l.stats.Failed, ListFailure{Resource: resource, Namespace: ns, Err: err})
	l.mu.Unlock()
}

// errListUnreachable marks a ListInto whose first request failed with a
// fault of the cluster.
var errListUnreachable = errors.New("the cluster cannot be reached")
