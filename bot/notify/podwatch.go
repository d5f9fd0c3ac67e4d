package notify

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/rbac"
)

// podWatcher is one Pod watch of a namespace: of the Pods that carry one
// label key (the key of the subscribed jobs' Pod selectors, e.g.
// batch.kubernetes.io/controller-uid), made as one of the subscribers
// whose Workloads are admitted and whose Pods do not all run yet. It runs
// only while the namespace has such subscriptions: Pod events then tell
// Running within a second instead of a poll's interval, and the requests
// are one LIST and one WATCH per namespace and key, whatever the number
// of subscriptions.
type podWatcher struct {
	ns, key, user string
	informer      cache.SharedIndexInformer
	cancel        context.CancelFunc
	// started is when the watch was made (mayRun).
	started time.Time
	mu      sync.Mutex
	refused bool
}

func (w *podWatcher) stop() { w.cancel() }

func (w *podWatcher) isRefused() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refused
}

// podWait is a subscription waiting for its Pods to run: its selector and
// how many Pods its Workload counts.
type podWait struct {
	id   string
	sel  labels.Selector
	need int
}

// podLabelIndex indexes a Pod watch's cache by the value of its key.
const podLabelIndex = "podLabel"

// podKeyOf is the label key a Pod watch selects a selector's Pods by, and
// the value this selector asks of it: its first equality (or one-value
// set) requirement; "" and "" when it has none (the namespace's every Pod
// is then watched).
func podKeyOf(selector string) (labels.Selector, string, string, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, "", "", err
	}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		if vals := r.Values().UnsortedList(); (r.Operator() == selection.Equals || r.Operator() == selection.DoubleEquals || r.Operator() == selection.In) && len(vals) == 1 {
			return sel, r.Key(), vals[0], nil
		}
	}
	return sel, "", "", nil
}

func podWatchKey(ns, key string) string { return ns + "\x00" + key }

// syncPodWatchers runs one Pod watch per namespace and label key that has
// subscriptions whose Workloads (as the namespace's Workload watch shows
// them) are admitted and whose Pods do not all run yet, and stops the
// others. It also checks the waiting subscriptions against what the
// watches already hold, so that one that starts waiting while its Pods
// already run is told.
func (n *Notifier) syncPodWatchers(ls *leadState) {
	wanted := map[string][]Subscription{}
	waiting := map[string][]podWait{}
	now := n.Clock.Now()
	ls.pmu.Lock()
	queued := maps.Clone(ls.podQueued)
	for id, at := range ls.podQueued {
		if now.Sub(at) >= n.Tick {
			delete(ls.podQueued, id)
		}
	}
	ls.pmu.Unlock()
	for _, s := range n.snapshot() {
		if s.PodSelector == "" {
			continue
		}
		w := ls.watchers[s.scope()]
		if w == nil {
			continue
		}
		wl := w.workload(&s)
		if wl == nil || !WantsPods(wl, s.Seen) {
			continue
		}
		sel, key, val, err := podKeyOf(s.PodSelector)
		if err != nil {
			continue
		}
		wk := podWatchKey(s.scope(), key)
		wanted[wk] = append(wanted[wk], s)
		if at, ok := queued[s.ID]; ok && now.Sub(at) < n.Tick {
			continue // queued by the watch, its check comes
		}
		waiting[wk+"\x00"+val] = append(waiting[wk+"\x00"+val], podWait{id: s.ID, sel: sel, need: PodCount(wl)})
	}
	keys := slices.Sorted(maps.Keys(waiting))
	ls.pmu.Lock()
	ls.podWaiting = waiting // the watches' goroutines change it from now on
	ls.pmu.Unlock()
	for wk, pw := range ls.podWatchers {
		if len(wanted[wk]) > 0 && !pw.isRefused() {
			continue
		}
		pw.stop()
		delete(ls.podWatchers, wk)
		if pw.isRefused() {
			if ls.podBad[wk] == nil {
				ls.podBad[wk] = map[string]time.Time{}
			}
			ls.podBad[wk][pw.user] = now.Add(10 * time.Minute)
		}
	}
	for wk, subs := range wanted {
		if ls.podWatchers[wk] != nil {
			continue
		}
		ns, key, _ := strings.Cut(wk, "\x00")
		if pw := n.startPodWatcher(ls, ns, key, subs); pw != nil {
			ls.podWatchers[wk] = pw
		}
	}
	ls.podWatches.Store(int64(len(ls.podWatchers)))
	ls.pmu.Lock()
	ls.podShared = maps.Clone(ls.podWatchers)
	ls.pmu.Unlock()
	for _, k := range keys {
		i := strings.LastIndexByte(k, 0)
		if pw := ls.podWatchers[k[:i]]; pw != nil && pw.informer.HasSynced() {
			// Before it has synced, its first list tells every Pod.
			n.checkPods(ls, pw, k[i+1:])
		}
	}
}

// startPodWatcher starts the Pod watch of ns and key as the first of subs
// (the oldest) whose identity resolves and whose watch was not refused
// lately.
func (n *Notifier) startPodWatcher(ls *leadState, ns, key string, subs []Subscription) *podWatcher {
	user, cl, ok := n.firstWatcher(ls, subs, ls.podBad[podWatchKey(ns, key)])
	if !ok {
		return nil
	}
	return n.watchPods(ls, ns, key, user, cl)
}

// slimPod keeps of a Pod what Running needs: its name, labels, phase and
// whether it is being deleted.
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion, Labels: p.Labels, DeletionTimestamp: p.DeletionTimestamp},
		Status:     corev1.PodStatus{Phase: p.Status.Phase},
	}, nil
}

func (n *Notifier) watchPods(ls *leadState, ns, key, user string, cl *rbac.Clients) *podWatcher {
	ctx, cancel := context.WithCancel(ls.ctx)
	_, inNS := splitScope(ns) // ns is the scope: a namespace, in its cluster
	pods := cl.Kube.CoreV1().Pods(inNS)
	selector := key // the key exists; "" selects every Pod
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = selector
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return pods.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, cl.Kube), &corev1.Pod{}, 0, cache.Indexers{podLabelIndex: func(obj any) ([]string, error) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return nil, nil
		}
		if key == "" {
			return []string{""}, nil
		}
		return []string{p.Labels[key]}, nil
	}})
	_ = inf.SetTransform(slimPod)
	pw := &podWatcher{ns: ns, key: key, user: user, informer: inf, cancel: cancel, started: n.Clock.Now()}
	_ = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		if denied(err) {
			pw.mu.Lock()
			pw.refused = true
			pw.mu.Unlock()
			n.Log.WarnContext(ctx, "notification Pod watch refused; another subscriber will watch, or the Pods are polled", slog.String("namespace", ns), slog.String("slackUser", user), slog.Any("error", err))
			n.kickWatchers()
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	onPod := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		val := ""
		if key != "" {
			val = p.Labels[key]
		}
		n.checkPods(ls, pw, val)
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onPod, UpdateFunc: func(_, obj any) { onPod(obj) }})
	go inf.RunWithContext(ctx)
	return pw
}

// checkPods queues the subscriptions waiting on the Pods of pw whose key
// has value val once all the Pods their Workload counts run (or have
// succeeded), from the watch's cache; a queued one stops waiting (the
// check before its DM reads the Pods again as its subscriber, and a sync
// a Tick later makes it wait again if they do not all run).
func (n *Notifier) checkPods(ls *leadState, pw *podWatcher, val string) {
	wk := podWatchKey(pw.ns, pw.key) + "\x00" + val
	ls.pmu.Lock()
	waits := ls.podWaiting[wk]
	ls.pmu.Unlock()
	if len(waits) == 0 {
		return
	}
	objs, _ := pw.informer.GetIndexer().ByIndex(podLabelIndex, val)
	var ready []string
	for _, w := range waits {
		if running := runningIn(objs, w.sel); running > 0 && running >= w.need {
			ready = append(ready, w.id)
		}
	}
	if len(ready) == 0 {
		return
	}
	now := n.Clock.Now()
	ls.pmu.Lock()
	ls.podWaiting[wk] = slices.DeleteFunc(slices.Clone(ls.podWaiting[wk]), func(w podWait) bool { return slices.Contains(ready, w.id) })
	for _, id := range ready {
		ls.podQueued[id] = now
	}
	ls.pmu.Unlock()
	n.mu.Lock()
	for _, id := range ready {
		if _, ok := n.seen[id]; !ok && n.Told != nil && len(n.seen) < 100000 {
			n.seen[id] = n.Clock.Now()
		}
	}
	n.mu.Unlock()
	for _, id := range ready {
		ls.queue.Add(id)
	}
}

// mayRun reports whether the Pods of s's Workload wl may all run: false
// when a synced Pod watch of its namespace and label key holds fewer
// running Pods than wl counts, and while such a watch, started less than
// PodPoll ago and not refused, has not synced yet (its first list, or the
// check of the waiting subscriptions once it has synced, tells Running:
// in a burst of admissions the Pod watches start as the DMs go out, and a
// LIST per DM would double the requests). The check before a DM then
// skips its Pod LIST (the watch will queue s when they run); otherwise it
// reads them as the subscriber.
func (n *Notifier) mayRun(s *Subscription, wl *kueue.Workload) bool {
	n.mu.Lock()
	ls := n.leading
	n.mu.Unlock()
	if ls == nil {
		return true
	}
	sel, key, val, err := podKeyOf(s.PodSelector)
	if err != nil {
		return true
	}
	ls.pmu.Lock()
	pw := ls.podShared[podWatchKey(s.scope(), key)]
	ls.pmu.Unlock()
	if pw == nil || pw.isRefused() {
		return true
	}
	if !pw.informer.HasSynced() {
		return n.Clock.Since(pw.started) >= n.PodPoll
	}
	objs, _ := pw.informer.GetIndexer().ByIndex(podLabelIndex, val)
	running := runningIn(objs, sel)
	return running > 0 && running >= PodCount(wl)
}

// runningIn counts the Pods of a watch's cache that sel matches and that
// run or have succeeded (not being deleted).
func runningIn(objs []any, sel labels.Selector) int {
	running := 0
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.DeletionTimestamp == nil && (p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodSucceeded) && sel.Matches(labels.Set(p.Labels)) {
			running++
		}
	}
	return running
}
