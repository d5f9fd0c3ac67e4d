package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Resolver turns a Slack user into the Kubernetes identity they read as
// (*rbac.Resolver). A *rbac.RefusedError means the user may not use the
// bot (any more).
type Resolver interface {
	Resolve(ctx context.Context, u rbac.SlackUser) (rbac.Identity, error)
}

// Slack is the part of the Web API notifications use (*slack.Client):
// posting DMs, with message metadata, and reading a DM's recent history
// with that metadata (scopes chat:write and im:history).
type Slack interface {
	PostMessageContext(ctx context.Context, channelID string, options ...slack.MsgOption) (string, string, error)
	GetConversationHistoryContext(ctx context.Context, params *slack.GetConversationHistoryParameters) (*slack.GetConversationHistoryResponse, error)
}

// ClientsFunc returns clients that read as an identity (rbac.ClientsFor
// on the bot's base rest.Config).
type ClientsFunc func(rbac.Identity) (*rbac.Clients, error)

// Cluster is how the notifier reads one configured cluster other than the
// home one: the subscriber's identity there and clients reading as it.
type Cluster struct {
	// Resolve maps the subscriber to their identity in the cluster (its
	// own identity mapping, or the top-level one).
	Resolve Resolver
	// Clients read the cluster as an identity.
	Clients ClientsFunc
}

// Notifier keeps the subscriptions and, while its replica leads (Lead),
// watches their jobs and sends the DMs. Subscribe, Unsubscribe and StopAll
// may be called at any time, on any replica. Build it with New.
type Notifier struct {
	Store   *Store
	Slack   Slack
	Resolve Resolver
	Clients ClientsFunc
	// Clusters are the other configured clusters, by name: a
	// subscription to a job there (Subscription.Cluster) is read and
	// watched through them, as the subscriber mapped there. A
	// subscription to a cluster not in it is refused.
	Clusters map[string]Cluster
	// Holder names this replica (its pod name) in pending records.
	Holder string
	// MaxPerUser and ExpireAfter are notify.maxPerUser and
	// notify.expireAfter.
	MaxPerUser  int
	ExpireAfter time.Duration
	Clock       clock.WithTicker
	Log         *slog.Logger
	// Tick is how often expiry and Pods are checked (10 s when zero);
	// Resync how often the store is read again for subscriptions other
	// replicas wrote (30 s when zero).
	Tick, Resync time.Duration
	// PodPoll is how often the Pods of admitted subscribed Workloads that
	// do not all run yet are read, for Running, when no Pod watch covers
	// them (their subscribers may not watch Pods; 30 s when zero).
	PodPoll time.Duration
	// Workers is how many subscriptions are handled at once (64 when
	// zero): a burst of transitions shares each shard's writes among the
	// workers waiting on it.
	Workers int
	// PendingGrace is how long a pending event another replica recorded
	// is left alone before this one looks for its message and posts it:
	// longer than PostTimeout, so a post still in flight on a replica that
	// lost the lease has ended (20 s when zero).
	PendingGrace time.Duration
	// PostTimeout bounds one DM post (10 s when zero).
	PostTimeout time.Duration

	// Lang tells a subscriber's language (their remembered choice, else
	// their Slack locale, else language.default: bot.Languages.Choose
	// with no question, whose lookups are cached), for each DM and reply;
	// nil: English.
	Lang func(ctx context.Context, user string) i18n.Lang

	// Told, when set, is called after each DM is posted with when the
	// transition was first seen on the watch (zero if not from the watch),
	// for metrics and benchmarks.
	Told func(s Subscription, e Event, seen, posted time.Time)

	mu   *sync.Mutex
	subs map[string]Subscription // by ID
	// seen holds when the watch first showed a subscription a transition
	// it was not told of (for Told).
	seen    map[string]time.Time
	leading *leadState
	clients map[string]*rbac.Clients
}

// leadState is what exists while the replica leads.
type leadState struct {
	ctx      context.Context
	queue    workqueue.TypedRateLimitingInterface[string]
	kick     chan struct{}
	watchers map[string]*watcher
	// bad holds, per namespace, the subscribers whose watch was refused,
	// and until when they are not tried again.
	bad map[string]map[string]time.Time
	// lastPods is when Pods were last polled (for subscriptions no Pod
	// watch covers).
	lastPods time.Time
	// podWatchers are the Pod watches, by namespace and label key
	// (podWatchKey); podBad the subscribers whose Pod watch was refused,
	// and until when they are not tried again.
	podWatchers map[string]*podWatcher
	podBad      map[string]map[string]time.Time
	// podWaiting are the subscriptions waiting for their Pods to run, by
	// namespace, label key and value; guarded by pmu (the watches read it).
	pmu        sync.Mutex
	podWaiting map[string][]podWait
	// podWatches is len(podWatchers), for readers on other goroutines;
	// podShared a copy of podWatchers for the workers (guarded by pmu).
	podWatches atomic.Int64
	podShared  map[string]*podWatcher
	// podQueued is when a Pod watch last queued each subscription (pmu):
	// for a Tick it does not wait again, so that a sync before its DM does
	// not queue it twice.
	podQueued map[string]time.Time
}

// New returns a Notifier with n's settings and defaults for those unset.
func New(n Notifier) *Notifier {
	if n.Clock == nil {
		n.Clock = clock.RealClock{}
	}
	if n.Log == nil {
		n.Log = slog.New(slog.DiscardHandler)
	}
	if n.Tick <= 0 {
		n.Tick = 10 * time.Second
	}
	if n.Resync <= 0 {
		n.Resync = 30 * time.Second
	}
	if n.PodPoll <= 0 {
		n.PodPoll = 30 * time.Second
	}
	if n.Workers <= 0 {
		n.Workers = 64
	}
	if n.PendingGrace <= 0 {
		n.PendingGrace = 20 * time.Second
	}
	if n.PostTimeout <= 0 {
		n.PostTimeout = 10 * time.Second
	}
	if n.MaxPerUser <= 0 {
		n.MaxPerUser = 10
	}
	if n.ExpireAfter <= 0 {
		n.ExpireAfter = 7 * 24 * time.Hour
	}
	n.mu = &sync.Mutex{}
	n.subs = map[string]Subscription{}
	n.seen = map[string]time.Time{}
	n.clients = map[string]*rbac.Clients{}
	return &n
}

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// get returns a copy of the subscription id.
func (n *Notifier) get(id string) (Subscription, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.subs[id]
	return s, ok
}

// snapshot returns copies of every subscription, by ID.
func (n *Notifier) snapshot() []Subscription {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]Subscription, 0, len(n.subs))
	for _, s := range n.subs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Subscription) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Len is how many subscriptions the notifier holds.
func (n *Notifier) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.subs)
}

// setAll replaces the view with what the store holds.
func (n *Notifier) setAll(subs []Subscription) {
	n.mu.Lock()
	n.subs = make(map[string]Subscription, len(subs))
	for _, s := range subs {
		n.subs[s.ID] = s
	}
	n.mu.Unlock()
	n.kickWatchers()
}

// update changes a user's subscriptions in the store and, once written, in
// the notifier's view.
func (n *Notifier) update(ctx context.Context, user string, fn func([]Subscription) ([]Subscription, error)) error {
	var after []Subscription
	err := n.Store.Update(ctx, user, func(cur []Subscription) ([]Subscription, error) {
		next, err := fn(cur)
		after = next
		return next, err
	})
	if err != nil {
		return err
	}
	n.mu.Lock()
	prev := map[string]Subscription{}
	for id, s := range n.subs {
		if s.User == user {
			prev[id] = s
			delete(n.subs, id)
		}
	}
	for _, s := range after {
		n.subs[s.ID] = fresher(s, prev[s.ID])
	}
	n.mu.Unlock()
	n.kickWatchers()
	return nil
}

// fresher is stored, a subscription as a write left it, with what the
// view already knows was told since: done changes the view at once and
// queues its write, so a write of another of the user's subscriptions
// that read the shard before that write landed still shows the event
// pending. Without this, the view would go back to pending, and the next
// look at the subscription would read the DM's history for nothing.
func fresher(stored, view Subscription) Subscription {
	if view.ID == "" {
		return stored
	}
	for _, k := range view.Seen {
		stored.Seen = remember(stored.Seen, k)
	}
	if stored.Pending != nil && view.Pending == nil && slices.Contains(view.Seen, stored.Pending.Event.Key) {
		stored.Pending = nil
	}
	return stored
}

// resynced replaces the view with what the store holds, as setAll, but
// keeps what the view knows was told since (fresher) of each event
// recorded pending less than doneWithin ago: in a burst, the told records
// are queued behind the shards' writes, so a resync reads many still
// pending, and each would otherwise be looked up in the DM's history
// (conversations.history, a Tier 3 method) for nothing. An older pending
// record whose event the view has as told stays pending: its told record
// failed, and the history check writes it again.
func (n *Notifier) resynced(subs []Subscription) {
	now := n.Clock.Now()
	n.mu.Lock()
	prev := n.subs
	n.subs = make(map[string]Subscription, len(subs))
	for _, s := range subs {
		if s.Pending != nil && now.Sub(s.Pending.Since) < doneWithin {
			s = fresher(s, prev[s.ID])
		}
		n.subs[s.ID] = s
	}
	n.mu.Unlock()
	n.kickWatchers()
}

// doneWithin bounds how long a told record may take to land (a shard's
// write gives up after 30 s) for resynced.
const doneWithin = time.Minute

func (n *Notifier) kickWatchers() {
	n.mu.Lock()
	ls := n.leading
	n.mu.Unlock()
	if ls == nil {
		return
	}
	select {
	case ls.kick <- struct{}{}:
	default:
	}
}

func (n *Notifier) enqueue(id string) {
	n.mu.Lock()
	ls := n.leading
	n.mu.Unlock()
	if ls != nil {
		ls.queue.Add(id)
	}
}

// errNoCluster is a subscription to a cluster the notifier does not read.
var errNoCluster = errors.New("notify: not a cluster notifications read")

// access is how the subscriber is resolved and read in cluster ("": home).
func (n *Notifier) access(cluster string) (Resolver, ClientsFunc, error) {
	if cluster == "" {
		return n.Resolve, n.Clients, nil
	}
	c, ok := n.Clusters[cluster]
	if !ok || c.Resolve == nil || c.Clients == nil {
		return nil, nil, fmt.Errorf("%w: %s", errNoCluster, cluster)
	}
	return c.Resolve, c.Clients, nil
}

// subscriber resolves s's subscriber in s's cluster and returns clients
// reading there as them.
func (n *Notifier) subscriber(ctx context.Context, s *Subscription) (*rbac.Clients, error) {
	resolve, _, err := n.access(s.Cluster)
	if err != nil {
		return nil, err
	}
	ident, err := resolve.Resolve(ctx, s.SlackUser())
	if err != nil {
		return nil, err
	}
	return n.clientsFor(s.Cluster, ident)
}

// clientsFor returns (cached) clients reading cluster ("": home) as id.
func (n *Notifier) clientsFor(cluster string, id rbac.Identity) (*rbac.Clients, error) {
	_, clients, err := n.access(cluster)
	if err != nil {
		return nil, err
	}
	k := cluster + "\x00" + identityKey(id)
	n.mu.Lock()
	c := n.clients[k]
	n.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err = clients(id)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	if len(n.clients) >= 2048 { // bounded: drop them all, they are cheap to rebuild
		n.clients = map[string]*rbac.Clients{}
	}
	n.clients[k] = c
	n.mu.Unlock()
	return c, nil
}

func identityKey(id rbac.Identity) string {
	var b strings.Builder
	b.WriteString(id.User)
	for _, g := range slices.Sorted(slices.Values(id.Groups)) {
		b.WriteString("\x00g" + g)
	}
	keys := make([]string, 0, len(id.Extra))
	for k := range id.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString("\x00e" + k + "=" + strings.Join(id.Extra[k], ","))
	}
	return b.String()
}

// Lead watches the subscriptions and sends their DMs until ctx ends
// (leadership lost, or shutdown). Run it under leader election.
func (n *Notifier) Lead(ctx context.Context) {
	ls := &leadState{
		ctx: ctx,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Clock: n.Clock}),
		kick:        make(chan struct{}, 1),
		watchers:    map[string]*watcher{},
		bad:         map[string]map[string]time.Time{},
		podWatchers: map[string]*podWatcher{},
		podBad:      map[string]map[string]time.Time{},
		podQueued:   map[string]time.Time{},
	}
	n.Log.InfoContext(ctx, "leading: sending notifications", slog.String("holder", n.Holder))
	for {
		subs, err := n.Store.Load(ctx)
		if err == nil {
			n.setAll(subs)
			break
		}
		n.Log.ErrorContext(ctx, "notification subscriptions unreadable; retrying", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return
		case <-n.Clock.After(5 * time.Second):
		}
	}
	n.mu.Lock()
	n.leading = ls
	n.mu.Unlock()
	var wg sync.WaitGroup
	defer func() {
		n.mu.Lock()
		n.leading = nil
		n.mu.Unlock()
		ls.queue.ShutDown()
		for _, w := range ls.watchers {
			w.stop()
		}
		for _, w := range ls.podWatchers {
			w.stop()
		}
		wg.Wait()
	}()
	for _, s := range n.snapshot() {
		if s.Pending != nil || !n.Clock.Now().Before(s.Expires) {
			ls.queue.Add(s.ID)
		}
	}
	for range n.Workers {
		wg.Go(func() { n.work(ctx, ls.queue) })
	}
	n.syncWatchers(ls)
	tick := n.Clock.NewTicker(n.Tick)
	defer tick.Stop()
	lastLoad := n.Clock.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ls.kick:
			n.syncWatchers(ls)
		case <-tick.C():
			now := n.Clock.Now()
			if now.Sub(lastLoad) >= n.Resync {
				if subs, err := n.Store.Load(ctx); err != nil {
					n.Log.ErrorContext(ctx, "notification subscriptions unreadable", slog.Any("error", err))
				} else {
					n.resynced(subs)
					lastLoad = now
				}
			}
			n.periodic(ls, now)
			n.syncWatchers(ls)
		}
	}
}

// periodic queues the subscriptions that expired and those with a
// pending event, and, every PodPoll, checks the Pods of the admitted
// subscribed Workloads whose Pods do not all run yet and that no Pod watch
// covers (its subscribers may not watch Pods: pollPods).
func (n *Notifier) periodic(ls *leadState, now time.Time) {
	var waiting []Subscription
	for _, s := range n.snapshot() {
		if s.Pending != nil || !now.Before(s.Expires) {
			ls.queue.Add(s.ID)
			continue
		}
		if s.PodSelector == "" {
			continue
		}
		if w := ls.watchers[s.scope()]; w != nil {
			if wl := w.workload(&s); wl != nil && WantsPods(wl, s.Seen) {
				if _, key, _, err := podKeyOf(s.PodSelector); err == nil && ls.podWatchers[podWatchKey(s.scope(), key)] != nil {
					continue
				}
				waiting = append(waiting, s)
			}
		}
	}
	if len(waiting) > 0 && now.Sub(ls.lastPods) >= n.PodPoll {
		ls.lastPods = now
		n.pollPods(ls, waiting)
	}
}

func (n *Notifier) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string]) {
	for {
		id, quit := q.Get()
		if quit {
			return
		}
		err := n.reconcile(ctx, id)
		switch {
		case err == nil:
			q.Forget(id)
		case ctx.Err() != nil:
		default:
			var later *retryAfter
			if errors.As(err, &later) {
				q.AddAfter(id, later.d)
			} else {
				n.Log.WarnContext(ctx, "notification failed; will retry", slog.String("subscription", id), slog.Any("error", err))
				q.AddRateLimited(id)
			}
		}
		q.Done(id)
	}
}

// retryAfter asks the worker to look at a subscription again later.
type retryAfter struct{ d time.Duration }

func (r *retryAfter) Error() string { return fmt.Sprintf("retry in %s", r.d) }

func denied(err error) bool {
	_, refused := rbac.IsRefused(err)
	return refused || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)
}

// reconcile brings one subscription up to date: a pending event first,
// then expiry, then the Workload read as the subscriber.
func (n *Notifier) reconcile(ctx context.Context, id string) error {
	s, ok := n.get(id)
	if !ok {
		return nil
	}
	if s.Pending != nil {
		return n.resume(ctx, s)
	}
	now := n.Clock.Now()
	if !now.Before(s.Expires) {
		return n.tell(ctx, s, Event{Key: "expired", Type: Expired})
	}
	cl, err := n.subscriber(ctx, &s)
	if denied(err) || errors.Is(err, errNoCluster) {
		// Refused, or a cluster no longer configured: the subscription ends.
		return n.tell(ctx, s, Event{Key: "lost-access", Type: LostAccess})
	}
	if err != nil {
		return err
	}
	wl, err := readWorkload(ctx, cl, &s)
	if denied(err) {
		return n.tell(ctx, s, Event{Key: "lost-access", Type: LostAccess})
	}
	if err != nil {
		return err
	}
	if wl == nil {
		gone, err := jobGone(ctx, cl, &s)
		switch {
		case denied(err):
			return n.tell(ctx, s, Event{Key: "lost-access", Type: LostAccess})
		case err != nil:
			return err
		case gone:
			return n.tell(ctx, s, Event{Key: "gone", Type: Gone})
		}
		return nil
	}
	var pods Pods
	if s.PodSelector != "" && WantsPods(wl, s.Seen) && n.mayRun(&s, wl) {
		if pods, err = readPods(ctx, cl, s.Namespace, s.PodSelector); err != nil {
			// Running is then not told from Pods; the other events are.
			n.Log.WarnContext(ctx, "notification: Pods unreadable as the subscriber", slog.String("subscription", s.ID), slog.String("job", s.Ref()), slog.Any("error", err))
		}
	}
	for _, e := range Transitions(s.Seen, Observe(wl, pods)) {
		if err := n.tell(ctx, s, e); err != nil {
			return err
		}
		if s, ok = n.get(id); !ok {
			return nil
		}
	}
	return nil
}

// lang is the language of user's messages (Lang).
func (n *Notifier) lang(ctx context.Context, user string) i18n.Lang {
	if n.Lang == nil {
		return i18n.English
	}
	return n.Lang(ctx, user)
}
