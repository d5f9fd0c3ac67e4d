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
	"time"

	"github.com/slack-go/slack"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"

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

// Notifier keeps the subscriptions and, while its replica leads (Lead),
// watches their jobs and sends the DMs. Subscribe, Unsubscribe and StopAll
// may be called at any time, on any replica. Build it with New.
type Notifier struct {
	Store   *Store
	Slack   Slack
	Resolve Resolver
	Clients ClientsFunc
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
	// do not all run yet are read, for Running (30 s when zero).
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
	// lastPods is when Pods were last polled.
	lastPods time.Time
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
	for id, s := range n.subs {
		if s.User == user {
			delete(n.subs, id)
		}
	}
	for _, s := range after {
		n.subs[s.ID] = s
	}
	n.mu.Unlock()
	n.kickWatchers()
	return nil
}

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

// clientsFor returns (cached) clients reading as id.
func (n *Notifier) clientsFor(id rbac.Identity) (*rbac.Clients, error) {
	k := identityKey(id)
	n.mu.Lock()
	c := n.clients[k]
	n.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := n.Clients(id)
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
		kick:     make(chan struct{}, 1),
		watchers: map[string]*watcher{},
		bad:      map[string]map[string]time.Time{},
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
					n.setAll(subs)
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
// subscribed Workloads whose Pods do not all run yet (pollPods).
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
		if w := ls.watchers[s.Namespace]; w != nil {
			if wl := w.workload(&s); wl != nil && WantsPods(wl, s.Seen) {
				waiting = append(waiting, s)
			}
		}
	}
	if len(waiting) > 0 && now.Sub(ls.lastPods) >= n.PodPoll {
		ls.lastPods = now
		n.pollPods(ls, waiting)
	}
}

// podGroup is the subscriptions of one namespace and subscriber whose Pod
// selectors are one equality on the same label key: one LIST with
// "key in (values)" reads all their Pods.
type podGroup struct {
	ns, user, key string
	values        map[string][]string // label value -> subscription IDs
	subscriber    Subscription
}

// maxInValues bounds the values of one set-based selector.
const maxInValues = 100

// pollPods reads, as each subscriber, the Pods of their admitted
// Workloads that do not all run yet, one LIST per namespace, subscriber
// and selector key (Jobs: batch.kubernetes.io/controller-uid in (...)),
// and queues those whose Pods now all run. Selectors that are not one
// equality are read one by one. The requests grow with the namespaces and
// their subscribers, not with the subscriptions.
func (n *Notifier) pollPods(ls *leadState, waiting []Subscription) {
	groups := map[string]*podGroup{}
	var single []Subscription
	for _, s := range waiting {
		sel, err := labels.Parse(s.PodSelector)
		reqs, _ := sel.Requirements()
		if err != nil || len(reqs) != 1 || reqs[0].Operator() != selection.Equals && reqs[0].Operator() != selection.DoubleEquals {
			single = append(single, s)
			continue
		}
		v := reqs[0].Values().UnsortedList()[0]
		gk := s.Namespace + "\x00" + s.User + "\x00" + reqs[0].Key()
		g := groups[gk]
		if g == nil || len(g.values) >= maxInValues {
			if g != nil {
				gk += "\x00" + s.ID
			}
			g = &podGroup{ns: s.Namespace, user: s.User, key: reqs[0].Key(), values: map[string][]string{}, subscriber: s}
			groups[gk] = g
		}
		g.values[v] = append(g.values[v], s.ID)
	}
	for _, g := range groups {
		vals := make([]string, 0, len(g.values))
		for v := range g.values {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		counts, err := n.countPods(ls.ctx, g.subscriber, g.key+" in ("+strings.Join(vals, ",")+")", g.key)
		if err != nil {
			n.Log.WarnContext(ls.ctx, "notification: Pods unreadable as the subscriber", slog.String("namespace", g.ns), slog.String("slackUser", g.user), slog.Any("error", err))
			continue
		}
		for v, ids := range g.values {
			for _, id := range ids {
				n.enqueueIfRunning(ls, id, counts[v])
			}
		}
	}
	for _, s := range single {
		counts, err := n.countPods(ls.ctx, s, s.PodSelector, "")
		if err == nil {
			n.enqueueIfRunning(ls, s.ID, counts[""])
		}
	}
}

// countPods lists Pods as s's subscriber and counts the running or
// succeeded ones per value of label key ("" when key is empty).
func (n *Notifier) countPods(ctx context.Context, s Subscription, selector, key string) (map[string]int, error) {
	ident, err := n.Resolve.Resolve(ctx, s.SlackUser())
	if err != nil {
		return nil, err
	}
	cl, err := n.clientsFor(ident)
	if err != nil {
		return nil, err
	}
	list, err := cl.Kube.CoreV1().Pods(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i := range list.Items {
		p := &list.Items[i]
		if p.DeletionTimestamp == nil && (p.Status.Phase == "Running" || p.Status.Phase == "Succeeded") {
			out[p.Labels[key]]++
		}
	}
	return out, nil
}

func (n *Notifier) enqueueIfRunning(ls *leadState, id string, running int) {
	s, ok := n.get(id)
	if !ok {
		return
	}
	if w := ls.watchers[s.Namespace]; w != nil {
		if wl := w.workload(&s); wl != nil && running >= PodCount(wl) && running > 0 {
			ls.queue.Add(id)
		}
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
	ident, err := n.Resolve.Resolve(ctx, s.SlackUser())
	if denied(err) {
		return n.tell(ctx, s, Event{Key: "lost-access", Type: LostAccess})
	}
	if err != nil {
		return err
	}
	cl, err := n.clientsFor(ident)
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
	if s.PodSelector != "" && WantsPods(wl, s.Seen) {
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

var errNoSubscription = errors.New("notify: the subscription ended meanwhile")

// tell records e as pending, posts its DM, and records it as told (and
// ends the subscription when e is terminal).
func (n *Notifier) tell(ctx context.Context, s Subscription, e Event) error {
	now := n.Clock.Now()
	err := n.update(ctx, s.User, func(cur []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(cur, func(c Subscription) bool { return c.ID == s.ID })
		if i < 0 {
			return nil, errNoSubscription
		}
		if cur[i].Pending != nil || slices.Contains(cur[i].Seen, e.Key) {
			return nil, errNoSubscription // another writer got there first
		}
		cur[i].Pending = &Pending{Event: e, Since: now, Holder: n.Holder}
		return cur, nil
	})
	if errors.Is(err, errNoSubscription) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Pending = &Pending{Event: e, Since: now, Holder: n.Holder}
	if err := n.post(ctx, s, e); err != nil {
		return err // still pending: resume looks in the history first
	}
	return n.done(ctx, s, e)
}

// resume finishes a pending event: unless its message is already in the
// DM's history (posted by a replica that died before recording it), it is
// posted now.
func (n *Notifier) resume(ctx context.Context, s Subscription) error {
	p := s.Pending
	if age := n.Clock.Since(p.Since); p.Holder != n.Holder && age < n.PendingGrace {
		return &retryAfter{d: n.PendingGrace - age}
	}
	found, err := n.posted(ctx, s, p)
	if err != nil {
		return fmt.Errorf("reading the DM history of %s: %w", s.Channel, err)
	}
	if found {
		n.Log.InfoContext(ctx, "notification found posted by an earlier leader; recording it", slog.String("subscription", s.ID), slog.String("event", p.Event.Key), slog.String("holder", p.Holder))
	} else if err := n.post(ctx, s, p.Event); err != nil {
		return err
	}
	return n.done(ctx, s, p.Event)
}

// done records e as told. The view changes at once; the write is queued
// behind the shard's earlier changes and not waited for: the next write of
// the subscription comes after it, and if it fails the event stays
// pending in the store, which the history check resolves without posting
// again. Not waiting lets a burst of DMs share each shard's writes.
func (n *Notifier) done(ctx context.Context, s Subscription, e Event) error {
	apply := func(cur []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(cur, func(c Subscription) bool { return c.ID == s.ID })
		if i < 0 {
			return nil, errNoSubscription
		}
		if e.Type.Terminal() {
			return slices.Delete(cur, i, i+1), nil
		}
		cur[i].Pending = nil
		cur[i].Seen = remember(cur[i].Seen, e.Key)
		return cur, nil
	}
	n.mu.Lock()
	if cur, ok := n.subs[s.ID]; ok {
		if next, err := apply([]Subscription{cur}); err == nil {
			delete(n.subs, s.ID)
			for _, v := range next {
				n.subs[v.ID] = v
			}
		}
	}
	n.mu.Unlock()
	c := n.Store.submit(ctx, s.User, apply)
	go func() {
		<-c.done
		if c.err != nil && !errors.Is(c.err, errNoSubscription) {
			n.Log.Warn("notification told, its record failed (the next leader finds it in the DM's history)", slog.String("subscription", s.ID), slog.String("event", e.Key), slog.Any("error", c.err))
		}
	}()
	return nil
}

func metadata(s Subscription, e Event) slack.SlackMetadata {
	return slack.SlackMetadata{EventType: MetadataEventType, EventPayload: map[string]any{"subscription": s.ID, "event": e.Key}}
}

// post sends e's DM. It is not cut short by a lost lease (the record says
// it is pending; PendingGrace covers the rest).
func (n *Notifier) post(ctx context.Context, s Subscription, e Event) error {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.PostTimeout)
	defer cancel()
	m := EventMessage(&s, e, n.Clock.Now())
	_, ts, err := n.Slack.PostMessageContext(pctx, s.Channel,
		slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl(),
		slack.MsgOptionMetadata(metadata(s, e)))
	if err != nil {
		return fmt.Errorf("posting %s of %s to %s: %w", e.Type, s.Ref(), s.Channel, err)
	}
	if n.Told != nil {
		n.mu.Lock()
		seen := n.seen[s.ID]
		delete(n.seen, s.ID)
		n.mu.Unlock()
		n.Told(s, e, seen, n.Clock.Now())
	}
	n.Log.InfoContext(ctx, "notification posted", slog.String("subscription", s.ID), slog.String("slackUser", s.User),
		slog.String("job", s.Ref()), slog.String("event", string(e.Type)), slog.String("key", e.Key), slog.String("ts", ts))
	return nil
}

// historySlack widens the history read around a pending record, for
// clock differences between the bot and Slack.
const historySlack = time.Minute

// maxHistoryPages bounds the history read: 10 pages of 100 messages.
const maxHistoryPages = 10

// posted looks in the DM's history, from shortly before the pending event
// was recorded, for a message with its metadata.
func (n *Notifier) posted(ctx context.Context, s Subscription, p *Pending) (bool, error) {
	from := p.Since.Add(-historySlack)
	params := &slack.GetConversationHistoryParameters{
		ChannelID: s.Channel, Oldest: fmt.Sprintf("%d.%06d", from.Unix(), from.Nanosecond()/1000),
		Limit: 100, IncludeAllMetadata: true,
	}
	for range maxHistoryPages {
		resp, err := n.Slack.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return false, err
		}
		for _, m := range resp.Messages {
			md := m.Metadata
			if md.EventType == MetadataEventType && fmt.Sprint(md.EventPayload["subscription"]) == s.ID && fmt.Sprint(md.EventPayload["event"]) == p.Event.Key {
				return true, nil
			}
		}
		if !resp.HasMore || resp.ResponseMetaData.NextCursor == "" {
			return false, nil
		}
		params.Cursor = resp.ResponseMetaData.NextCursor
	}
	return false, nil
}

// readWorkload reads the subscription's Workload as the subscriber: by
// name for a Workload, else the newest Workload labelled with the job's
// UID. nil when there is none.
func readWorkload(ctx context.Context, cl *rbac.Clients, s *Subscription) (*kueue.Workload, error) {
	wls := cl.Kueue.KueueV1beta2().Workloads(s.Namespace)
	if s.Kind == kueueWorkloadKind {
		wl, err := wls.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return wl, err
	}
	list, err := wls.List(ctx, metav1.ListOptions{LabelSelector: controllerconstants.JobUIDLabel + "=" + s.JobUID, Limit: 20})
	if err != nil {
		return nil, err
	}
	var newest *kueue.Workload
	for i := range list.Items {
		if w := &list.Items[i]; newest == nil || newest.CreationTimestamp.Before(&w.CreationTimestamp) {
			newest = w
		}
	}
	return newest, nil
}

const kueueWorkloadKind = "Workload"

// readPods counts the job's Pods as the subscriber (one LIST by the job's
// Pod selector).
func readPods(ctx context.Context, cl *rbac.Clients, ns, selector string) (Pods, error) {
	list, err := cl.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 500})
	if err != nil {
		return Pods{}, err
	}
	p := Pods{Known: true}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp != nil {
			continue
		}
		switch list.Items[i].Status.Phase {
		case "Running":
			p.Running++
		case "Succeeded":
			p.Succeeded++
		}
	}
	return p, nil
}

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

// syncWatchers runs one watch per namespace that has subscriptions, as
// one of its subscribers, and stops the others.
func (n *Notifier) syncWatchers(ls *leadState) {
	byNS := map[string][]Subscription{}
	for _, s := range n.snapshot() {
		byNS[s.Namespace] = append(byNS[s.Namespace], s)
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
}

// startWatcher starts the namespace's watch as the first subscriber (the
// oldest subscription) whose identity resolves and whose watch was not
// refused lately.
func (n *Notifier) startWatcher(ls *leadState, ns string, subs []Subscription) *watcher {
	slices.SortFunc(subs, func(a, b Subscription) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	now := n.Clock.Now()
	tried := map[string]bool{}
	for _, s := range subs {
		if tried[s.User] || now.Before(ls.bad[ns][s.User]) {
			continue
		}
		tried[s.User] = true
		ident, err := n.Resolve.Resolve(ls.ctx, s.SlackUser())
		if err != nil {
			continue
		}
		cl, err := n.clientsFor(ident)
		if err != nil {
			continue
		}
		return n.watch(ls, ns, s.User, cl)
	}
	return nil
}

func (n *Notifier) watch(ls *leadState, ns, user string, cl *rbac.Clients) *watcher {
	ctx, cancel := context.WithCancel(ls.ctx)
	wls := cl.Kueue.KueueV1beta2().Workloads(ns)
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
	return w
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
	for _, s := range n.subs {
		if s.Namespace != ns {
			continue
		}
		match := s.Kind == kueueWorkloadKind && s.Name == wl.Name || s.JobUID != "" && slices.Contains(uids, s.JobUID)
		if !match {
			continue
		}
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
}
