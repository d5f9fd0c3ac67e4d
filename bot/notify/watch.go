package notify

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"

	"github.com/kueuebot/kueuebot/rbac"
)

// watcher is the one Workload watch of a namespace, made as one of its
// subscribers.
type watcher struct {
	ns, user string
	informer cache.SharedIndexInformer
	cancel   context.CancelFunc
	mu       sync.Mutex
	refused  bool
}

func (w *watcher) stop() { w.cancel() }

func (w *watcher) isRefused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refused
}

// jobIndex indexes Workloads by the UIDs of their jobs (label and owners).
const jobIndex = "jobUID"

func jobUIDs(obj any) ([]string, error) {
	wl, ok := obj.(*kueue.Workload)
	if !ok {
		return nil, nil
	}
	var out []string
	if v := wl.Labels[controllerconstants.JobUIDLabel]; v != "" {
		out = append(out, v)
	}
	for _, o := range wl.OwnerReferences {
		if !slices.Contains(out, string(o.UID)) {
			out = append(out, string(o.UID))
		}
	}
	return out, nil
}

// workload returns the watched Workload of s from the watch's cache.
func (w *watcher) workload(s *Subscription) *kueue.Workload {
	if s.Kind == kueueWorkloadKind {
		obj, ok, _ := w.informer.GetStore().GetByKey(s.Namespace + "/" + s.Name)
		if !ok {
			return nil
		}
		wl, _ := obj.(*kueue.Workload)
		return wl
	}
	objs, _ := w.informer.GetIndexer().ByIndex(jobIndex, s.JobUID)
	var newest *kueue.Workload
	for _, o := range objs {
		if wl, ok := o.(*kueue.Workload); ok && (newest == nil || newest.CreationTimestamp.Before(&wl.CreationTimestamp)) {
			newest = wl
		}
	}
	return newest
}

// slim keeps of a Workload what notifications read (name, labels,
// owners, pod set counts, status conditions and admission), so the
// watch's cache costs little per Workload of the namespace.
func slim(obj any) (any, error) {
	wl, ok := obj.(*kueue.Workload)
	if !ok {
		return obj, nil
	}
	out := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{
			Name: wl.Name, Namespace: wl.Namespace, UID: wl.UID, ResourceVersion: wl.ResourceVersion,
			CreationTimestamp: wl.CreationTimestamp, OwnerReferences: wl.OwnerReferences,
		},
		Status: kueue.WorkloadStatus{Conditions: wl.Status.Conditions},
	}
	if v := wl.Labels[controllerconstants.JobUIDLabel]; v != "" {
		out.Labels = map[string]string{controllerconstants.JobUIDLabel: v}
	}
	for _, ps := range wl.Spec.PodSets {
		out.Spec.PodSets = append(out.Spec.PodSets, kueue.PodSet{Name: ps.Name, Count: ps.Count})
	}
	if a := wl.Status.Admission; a != nil {
		out.Status.Admission = &kueue.Admission{ClusterQueue: a.ClusterQueue}
	}
	return out, nil
}

// syncWatchers runs one watch per namespace that has subscriptions (in
// each cluster: the scope, Subscription.scope), as one of its
// subscribers, and stops the others.
func (n *Notifier) syncWatchers(ls *leadState) {
	byNS := map[string][]Subscription{}
	for _, s := range n.snapshot() {
		byNS[s.scope()] = append(byNS[s.scope()], s)
	}
	for ns, w := range ls.watchers {
		subs := byNS[ns]
		still := slices.ContainsFunc(subs, func(s Subscription) bool { return s.User == w.user })
		if len(subs) == 0 || !still || w.isRefused() {
			w.stop()
			delete(ls.watchers, ns)
			if w.isRefused() {
				if ls.bad[ns] == nil {
					ls.bad[ns] = map[string]time.Time{}
				}
				ls.bad[ns][w.user] = n.Clock.Now().Add(10 * time.Minute)
			}
		}
	}
	for ns, subs := range byNS {
		if ls.watchers[ns] != nil {
			continue
		}
		if w := n.startWatcher(ls, ns, subs); w != nil {
			ls.watchers[ns] = w
			continue
		}
		// Nobody can watch: each subscription is read on its own, which
		// tells those who lost access.
		for _, s := range subs {
			ls.queue.Add(s.ID)
		}
	}
	n.syncPodWatchers(ls)
}

// startWatcher starts the namespace's watch as the first subscriber (the
// oldest subscription) whose identity resolves and whose watch was not
// refused lately.
func (n *Notifier) startWatcher(ls *leadState, ns string, subs []Subscription) *watcher {
	user, cl, ok := n.firstWatcher(ls, subs, ls.bad[ns])
	if !ok {
		return nil
	}
	return n.watch(ls, ns, user, cl)
}

// firstWatcher is the subscriber a watch is made as: of subs, the oldest
// subscription's user whose watch was not refused lately (refused: until
// when, per user) and whose identity resolves to clients.
func (n *Notifier) firstWatcher(ls *leadState, subs []Subscription, refused map[string]time.Time) (string, *rbac.Clients, bool) {
	subs = slices.Clone(subs)
	slices.SortFunc(subs, func(a, b Subscription) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	now := n.Clock.Now()
	tried := map[string]bool{}
	for _, s := range subs {
		if tried[s.User] || now.Before(refused[s.User]) {
			continue
		}
		tried[s.User] = true
		cl, err := n.subscriber(ls.ctx, &s)
		if err != nil {
			continue
		}
		return s.User, cl, true
	}
	return "", nil, false
}

// watch starts the Workload watch of scope (a namespace, in its cluster:
// cl reads that cluster) as user.
func (n *Notifier) watch(ls *leadState, scope, user string, cl *rbac.Clients) *watcher {
	ns := scope
	ctx, cancel := context.WithCancel(ls.ctx)
	_, inNS := splitScope(scope)
	wls := cl.Kueue.KueueV1beta2().Workloads(inNS)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return wls.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return wls.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, cl.Kueue), &kueue.Workload{}, 0, cache.Indexers{jobIndex: jobUIDs})
	_ = inf.SetTransform(slim)
	w := &watcher{ns: ns, user: user, informer: inf, cancel: cancel}
	_ = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		if denied(err) {
			w.mu.Lock()
			w.refused = true
			w.mu.Unlock()
			n.Log.WarnContext(ctx, "notification watch refused; another subscriber of the namespace will watch", slog.String("namespace", ns), slog.String("slackUser", user), slog.Any("error", err))
			n.kickWatchers()
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { n.onWorkload(ns, obj, false) },
		UpdateFunc: func(_, obj any) { n.onWorkload(ns, obj, false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			n.onWorkload(ns, obj, true)
		},
	})
	go inf.RunWithContext(ctx)
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			n.onSynced(ns, w)
		}
	}()
	return w
}

// onSynced queues, once the watch of scope ns has listed, the
// subscriptions whose Workload it did not list: one deleted (or changed)
// between the subscription and the watch's start sends no event, and
// would otherwise wait for the resync.
func (n *Notifier) onSynced(ns string, w *watcher) {
	n.mu.Lock()
	var ids []string
	for _, s := range n.subs {
		if s.scope() == ns && w.workload(&s) == nil {
			ids = append(ids, s.ID)
		}
	}
	n.mu.Unlock()
	for _, id := range ids {
		n.enqueue(id)
	}
}

// onWorkload queues the subscriptions of a Workload that changed in a way
// they were not told about (no request: the watch's object is compared
// with what each was told; the reconcile reads it again as the
// subscriber).
func (n *Notifier) onWorkload(ns string, obj any, deleted bool) {
	wl, ok := obj.(*kueue.Workload)
	if !ok {
		return
	}
	uids, _ := jobUIDs(wl)
	n.mu.Lock()
	var ids []string
	pods := false
	for _, s := range n.subs {
		if s.scope() != ns {
			continue
		}
		match := s.Kind == kueueWorkloadKind && s.Name == wl.Name || s.JobUID != "" && slices.Contains(uids, s.JobUID)
		if !match {
			continue
		}
		pods = pods || !deleted && s.PodSelector != "" && WantsPods(wl, s.Seen)
		if deleted || len(Transitions(s.Seen, Observe(wl, Pods{}))) > 0 {
			ids = append(ids, s.ID)
			if _, ok := n.seen[s.ID]; !ok && n.Told != nil && len(n.seen) < 100000 {
				n.seen[s.ID] = n.Clock.Now()
			}
		}
	}
	n.mu.Unlock()
	for _, id := range ids {
		n.enqueue(id)
	}
	if pods {
		// Admitted, its Pods not all running: its namespace's Pod watch
		// starts (or learns of it) now, not at the next tick.
		n.kickWatchers()
	}
}
