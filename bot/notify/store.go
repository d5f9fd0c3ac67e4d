package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kueuebot/kueuebot/rbac"
)

// Subscription is one user's wish to be told about one job. It is stored
// as JSON in the user's shard (Store); it holds no Kubernetes identity:
// the subscriber is resolved again from the Slack user before each read.
type Subscription struct {
	// ID names it (random, 12 hex digits); the Stop button carries it.
	ID string `json:"id"`
	// User, Team and Enterprise are the subscriber's Slack IDs.
	User       string `json:"user"`
	Team       string `json:"team,omitempty"`
	Enterprise string `json:"enterprise,omitempty"`
	// Channel is the DM channel the messages go to (the channel Slack
	// answered the confirmation with).
	Channel string `json:"channel"`
	// Cluster is the configured cluster the job is in (clusters[].name);
	// empty: the home cluster.
	Cluster string `json:"cluster,omitempty"`
	// Namespace, Kind and Name are the job's.
	Namespace string `json:"namespace"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	// JobUID is the job's UID: its Workloads carry it in the label
	// kueue.x-k8s.io/job-uid or an ownerReference. Empty for Kind Workload.
	JobUID string `json:"jobUID,omitempty"`
	// PodSelector selects the job's Pods (kinds.Kind.PodSelector), for
	// Running; empty when unknown.
	PodSelector string    `json:"podSelector,omitempty"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires"`
	// Seen are the keys of the events already told, or already true when
	// the user subscribed (the newest maxSeen).
	Seen []string `json:"seen,omitempty"`
	// Pending is the event being told: recorded before the post, cleared
	// after it. A replica that finds it set looks for its message in the
	// DM's history before posting it.
	Pending *Pending `json:"pending,omitempty"`
}

// Pending is an event recorded before its message was posted.
type Pending struct {
	Event Event `json:"event"`
	// Since is when it was recorded; Holder by which replica.
	Since  time.Time `json:"since"`
	Holder string    `json:"holder,omitempty"`
}

// Ref is the job as "namespace/Kind/name" (its cluster is Cluster).
func (s *Subscription) Ref() string { return s.Namespace + "/" + s.Kind + "/" + s.Name }

// scope is what one Workload watch covers: the job's namespace, in its
// cluster ("cluster/namespace"; the namespace alone in the home cluster).
func (s *Subscription) scope() string { return scopeOf(s.Cluster, s.Namespace) }

func scopeOf(cluster, ns string) string {
	if cluster == "" {
		return ns
	}
	return cluster + "/" + ns
}

// splitScope is scopeOf's inverse.
func splitScope(scope string) (cluster, ns string) {
	if c, n, ok := strings.Cut(scope, "/"); ok {
		return c, n
	}
	return "", scope
}

// SlackUser is the subscriber as the resolver takes it.
func (s *Subscription) SlackUser() rbac.SlackUser {
	return rbac.SlackUser{ID: s.User, TeamID: s.Team, EnterpriseID: s.Enterprise}
}

// MaxShardBytes bounds the data of one subscription ConfigMap, under the
// API server's 1 MiB per object with room for metadata. A subscription
// takes 400 to 1,200 bytes (names are bounded by Kubernetes), so a shard
// holds 750 at the very least and the 8 shards 6,000: a new subscription
// that would pass it is refused ("too many subscriptions"), never dropped.
const MaxShardBytes = 900 << 10

// ErrFull is returned when a shard cannot take another subscription.
var ErrFull = errors.New("notify: the subscription store is full")

// Store keeps subscriptions in the ConfigMaps rbac.NotifyConfigMapNames()
// of the bot's namespace, read and written as the bot: a user's
// subscriptions are one data key (the Slack user ID) of the shard the user
// hashes to, so a user's changes touch one object, and the bot's Role names
// every object it may get or update. Writes to a shard are batched (group
// commit: a write waits Linger for more changes, and the changes waiting
// when it starts go in it) and optimistic (resourceVersion; a conflict
// re-reads and reapplies).
type Store struct {
	Client    kubernetes.Interface
	Namespace string
	// Linger is how long a shard's write waits, once a change is queued,
	// for more changes to write with it (50 ms when zero; negative: not at
	// all). In a burst of DMs the pending and told records of many share
	// one write; a lone DM waits that much longer.
	Linger time.Duration

	once   sync.Once
	shards [rbac.NotifyShards]*shard
}

type shard struct {
	name string
	mu   sync.Mutex // held while a batch is written
	// cm is the last ConfigMap read or written (nil: not read yet);
	// exists says whether it is on the server (else it is created).
	cm     *corev1.ConfigMap
	exists bool
	// queue holds changes waiting for the next write; scheduled says a
	// write that will take them is on its way.
	qmu       sync.Mutex
	queue     []*change
	scheduled bool
}

type change struct {
	user string
	fn   func([]Subscription) ([]Subscription, error)
	err  error
	done chan struct{}
}

func (s *Store) init() {
	s.once.Do(func() {
		for i := range s.shards {
			s.shards[i] = &shard{name: rbac.NotifyConfigMapPrefix + strconv.Itoa(i)}
		}
	})
}

// ShardOf is the shard index of a Slack user.
func ShardOf(user string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(user))
	return int(h.Sum32() % rbac.NotifyShards)
}

func decodeUser(cm *corev1.ConfigMap, user string) ([]Subscription, error) {
	raw, ok := cm.Data[user]
	if !ok {
		return nil, nil
	}
	var subs []Subscription
	if err := json.Unmarshal([]byte(raw), &subs); err != nil {
		return nil, fmt.Errorf("notify: ConfigMap %s key %s: %w", cm.Name, user, err)
	}
	return subs, nil
}

func dataBytes(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n
}

// read gets the shard's ConfigMap; a missing one is empty (created on the
// first write: exists is false).
func (s *Store) read(ctx context.Context, sh *shard) (cm *corev1.ConfigMap, exists bool, err error) {
	cm, err = s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, sh.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sh.name, Namespace: s.Namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "kueuebot", "app.kubernetes.io/component": "notify"}}}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("notify: ConfigMap %s/%s: %w", s.Namespace, sh.name, err)
	}
	return cm, true, nil
}

// Load reads every shard and returns all subscriptions, by shard then user
// then creation.
func (s *Store) Load(ctx context.Context) ([]Subscription, error) {
	s.init()
	var out []Subscription
	for _, sh := range s.shards {
		cm, exists, err := s.read(ctx, sh)
		if err != nil {
			return nil, err
		}
		sh.mu.Lock()
		sh.cm, sh.exists = cm, exists
		sh.mu.Unlock()
		users := make([]string, 0, len(cm.Data))
		for u := range cm.Data {
			users = append(users, u)
		}
		sort.Strings(users)
		for _, u := range users {
			subs, err := decodeUser(cm, u)
			if err != nil {
				return nil, err
			}
			out = append(out, subs...)
		}
	}
	return out, nil
}

// User returns one user's subscriptions (a read of their shard).
func (s *Store) User(ctx context.Context, user string) ([]Subscription, error) {
	s.init()
	sh := s.shards[ShardOf(user)]
	cm, _, err := s.read(ctx, sh)
	if err != nil {
		return nil, err
	}
	return decodeUser(cm, user)
}

// Update changes one user's subscriptions: fn gets them and returns the new
// list (an error writes nothing and is returned). The change is written
// with the others waiting for the same shard. It returns when written.
func (s *Store) Update(ctx context.Context, user string, fn func([]Subscription) ([]Subscription, error)) error {
	c := s.submit(ctx, user, fn)
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		// The change may still be written; the caller gives up waiting.
		return ctx.Err()
	}
}

// submit queues a change for the user's shard and starts a write; the
// change's done closes once it is written (or failed: err). Changes of one
// shard are applied in the order submitted.
func (s *Store) submit(ctx context.Context, user string, fn func([]Subscription) ([]Subscription, error)) *change {
	s.init()
	sh := s.shards[ShardOf(user)]
	c := &change{user: user, fn: fn, done: make(chan struct{})}
	sh.qmu.Lock()
	sh.queue = append(sh.queue, c)
	start := !sh.scheduled
	sh.scheduled = true
	sh.qmu.Unlock()
	if start {
		linger := s.Linger
		if linger == 0 {
			linger = 50 * time.Millisecond
		}
		go func() {
			if linger > 0 {
				time.Sleep(linger)
			}
			s.flush(context.WithoutCancel(ctx), sh)
		}()
	}
	return c
}

// flush writes every change queued for the shard in one update.
func (s *Store) flush(ctx context.Context, sh *shard) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.qmu.Lock()
	batch := sh.queue
	sh.queue, sh.scheduled = nil, false
	sh.qmu.Unlock()
	if len(batch) == 0 {
		return // an earlier flush took them
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	finish := func(err error) {
		for _, c := range batch {
			if c.err == nil {
				c.err = err
			}
			close(c.done)
		}
	}
	for attempt := 0; ; attempt++ {
		cm, exists := sh.cm, sh.exists
		if cm == nil || attempt > 0 {
			fresh, ok, err := s.read(ctx, sh)
			if err != nil {
				finish(err)
				return
			}
			cm, exists = fresh, ok
		}
		next := cm.DeepCopy()
		if next.Data == nil {
			next.Data = map[string]string{}
		}
		applied := 0
		for _, c := range batch {
			c.err = nil
			subs, err := decodeUser(next, c.user)
			if err == nil {
				subs, err = c.fn(slices.Clone(subs))
			}
			if err != nil {
				c.err = err
				continue
			}
			before, had := next.Data[c.user]
			if len(subs) == 0 {
				delete(next.Data, c.user)
			} else {
				raw, err := json.Marshal(subs)
				if err != nil {
					c.err = err
					continue
				}
				next.Data[c.user] = string(raw)
			}
			if dataBytes(next) > MaxShardBytes && len(next.Data[c.user]) > len(before) {
				// Only a change that grows the shard past its bound is
				// refused; one that shrinks it always goes through.
				if had {
					next.Data[c.user] = before
				} else {
					delete(next.Data, c.user)
				}
				c.err = ErrFull
				continue
			}
			applied++
		}
		if applied == 0 {
			finish(nil)
			return
		}
		var written *corev1.ConfigMap
		var err error
		if !exists {
			written, err = s.Client.CoreV1().ConfigMaps(s.Namespace).Create(ctx, next, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = apierrors.NewConflict(corev1.Resource("configmaps"), sh.name, err)
			}
		} else {
			written, err = s.Client.CoreV1().ConfigMaps(s.Namespace).Update(ctx, next, metav1.UpdateOptions{})
		}
		if apierrors.IsConflict(err) && attempt < 10 {
			continue
		}
		if err != nil {
			sh.cm = nil
			finish(fmt.Errorf("notify: ConfigMap %s/%s: %w", s.Namespace, sh.name, err))
			return
		}
		sh.cm, sh.exists = written, true
		finish(nil)
		return
	}
}
