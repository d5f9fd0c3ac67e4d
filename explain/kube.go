package explain

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// DefaultFetcherCacheSize bounds how many identities keep a fetcher.
const DefaultFetcherCacheSize = 512

// DefaultFetcherTTL is how long an identity's fetcher (and the discovery
// it cached) is kept.
const DefaultFetcherTTL = 10 * time.Minute

// KubeReader reads a cluster as each caller through impersonation: it
// copies the bot's rest.Config and impersonates the identity
// (rbac.ClientsFor). It keeps one fetcher per identity (in apimachinery's
// LRUExpireCache: bounded, with a TTL), so API discovery and HTTP
// connections are reused across questions, lists and digests.
type KubeReader struct {
	// Base is the bot's own rest.Config. Required.
	Base *rest.Config
	// Finder maps a caller to namespaces. Required for questions and
	// lists; digests name their namespaces.
	Finder *rbac.NamespaceFinder
	// ClusterScoped, when set (clusterScopedReads: bot), reads the caller's
	// own ClusterQueue, flavors and cohort as the bot.
	ClusterScoped kueueclient.Interface
	// KueueConfig, when set (kube.kueueConfig), reads Kueue's own
	// Configuration as the bot (fetch.KueueConfigMap).
	KueueConfig func(context.Context) (*diagnose.KueueConfig, error)
	// Timeout bounds each API request; fetch.DefaultTimeout when zero.
	Timeout time.Duration
	// CacheSize bounds the cached fetchers; DefaultFetcherCacheSize when 0.
	CacheSize int
	// TTL is how long a fetcher is kept; DefaultFetcherTTL when 0.
	TTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	once  sync.Once
	cache *cache.LRUExpireCache
}

// clockFunc adapts a func() time.Time to cache.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return clock(f) }

type cachedReader struct {
	clients  *rbac.Clients
	fetcher  *fetch.Fetcher
	metadata metadata.Interface
}

// identityKey is the cache key of an identity: user, groups and extra.
func identityKey(id rbac.Identity) string {
	var b strings.Builder
	b.WriteString(id.User)
	b.WriteByte(0)
	for _, g := range id.Groups {
		b.WriteString(g)
		b.WriteByte(1)
	}
	b.WriteByte(0)
	keys := make([]string, 0, len(id.Extra))
	for k := range id.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(2)
		for _, v := range id.Extra[k] {
			b.WriteString(v)
			b.WriteByte(1)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// reader returns the cached clients and fetcher of id, building them on a
// miss or after the TTL.
func (k *KubeReader) reader(id rbac.Identity) (*cachedReader, error) {
	if k.Base == nil {
		return nil, errors.New("explain: KubeReader has no Base config")
	}
	k.once.Do(func() {
		size := k.CacheSize
		if size <= 0 {
			size = DefaultFetcherCacheSize
		}
		k.cache = cache.NewLRUExpireCacheWithClock(size, clockFunc(k.Now))
	})
	key := identityKey(id)
	if v, ok := k.cache.Get(key); ok {
		return v.(*cachedReader), nil
	}
	clients, err := rbac.ClientsFor(k.Base, id)
	if err != nil {
		return nil, err
	}
	meta, err := metadata.NewForConfig(clients.Config)
	if err != nil {
		return nil, err
	}
	ttl := k.TTL
	if ttl <= 0 {
		ttl = DefaultFetcherTTL
	}
	c := &cachedReader{
		clients: clients,
		fetcher: &fetch.Fetcher{
			Kube: clients.Kube, Kueue: clients.Kueue, Dynamic: clients.Dynamic,
			ClusterScoped: k.ClusterScoped, KueueConfig: k.KueueConfig, Timeout: k.Timeout, Now: k.Now,
		},
		metadata: meta,
	}
	k.cache.Add(key, c, ttl)
	return c, nil
}

// Namespaces implements Reader.
func (k *KubeReader) Namespaces(ctx context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	if k.Finder == nil {
		return rbac.Namespaces{}, errors.New("explain: KubeReader has no namespace Finder")
	}
	c, err := k.reader(id)
	if err != nil {
		return rbac.Namespaces{}, err
	}
	nss, err := k.Finder.Find(ctx, explicit, id, c.clients.Kube)
	if err != nil {
		if re := fetch.AsReadError(fetch.KindNamespaces, "", "", err); re != nil && ctx.Err() == nil {
			return nss, re // a sick API server, said plainly
		}
		return nss, err
	}
	return nss, nil
}

// JobNames implements JobNamer with one metadata-only LIST of Workloads
// per namespace, as id.
func (k *KubeReader) JobNames(ctx context.Context, id rbac.Identity, namespaces []string) (map[string]bool, error) {
	c, err := k.reader(id)
	if err != nil {
		return nil, err
	}
	return listJobNames(ctx, c.metadata, namespaces)
}

// List implements Lister: a few paginated LISTs per namespace as id
// (Workloads, job kinds, LocalQueues, Pods, Events; cluster-wide when
// namespaces is empty) and cluster-wide (ClusterQueues, ResourceFlavors,
// Cohorts, AdmissionChecks, WorkloadPriorityClasses; the quota kinds as the
// bot with ClusterScoped, as a single question reads them), whatever the
// number of workloads. A LIST the
// caller may not make becomes a gap of the Snapshots that need it, as in a
// single question; RBAC decides what the LISTs return, so every namespace
// listed is readable (a namespace the caller may not read lists nothing).
func (k *KubeReader) List(ctx context.Context, id rbac.Identity, namespaces []string) (Listing, error) {
	c, err := k.reader(id)
	if err != nil {
		return Listing{}, err
	}
	l, err := listClients(ctx, fetch.Clients{Kube: c.clients.Kube, Kueue: c.clients.Kueue, Dynamic: c.clients.Dynamic, ClusterScoped: k.ClusterScoped}, namespaces, k.Timeout)
	if err == nil && k.KueueConfig != nil {
		// Jobs without a Workload are classified as a single question
		// classifies them: with Kueue's Configuration, read as the bot
		// (cached). Unreadable, they are classified without it.
		if kc, kerr := k.KueueConfig(ctx); kerr == nil {
			l.Store.SetKueueConfig(kc)
		}
	}
	return l, err
}

// listClients fills a store with the LISTs a list or digest needs, through
// clients acting as one identity.
func listClients(ctx context.Context, c fetch.Clients, namespaces []string, timeout time.Duration) (Listing, error) {
	st := fetch.NewStore()
	stats, err := st.ListInto(ctx, c, fetch.ListOptions{Namespaces: namespaces, Jobs: true, Pods: true, Events: true, Timeout: timeout})
	if err != nil {
		return Listing{}, readError(ctx, "Workload", err)
	}
	return Listing{Store: st, All: true, Stats: stats}, nil
}

// readError says plainly why a read failed: the bot's own RBAC refusing the
// impersonation, or a sick API server.
func readError(ctx context.Context, kind string, err error) error {
	if errors.Is(err, fetch.ErrImpersonation) {
		// The bot's own RBAC is wrong: say so, without the server's text.
		return userErr("explain.notAllowed", i18n.Verbatim("helm upgrade"), i18n.Verbatim("kueuebot rbac --config")).because(err)
	}
	if re := fetch.AsReadError(kind, "", "", err); re != nil && ctx.Err() == nil {
		return re
	}
	return err
}

// Snapshot implements Reader.
func (k *KubeReader) Snapshot(ctx context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	c, err := k.reader(id)
	if err != nil {
		return nil, err
	}
	s, err := c.fetcher.Fetch(ctx, t)
	if errors.Is(err, fetch.ErrImpersonation) {
		return nil, readError(ctx, "", err)
	}
	return s, err
}

// ClientReader reads with fixed clients, as whoever they authenticate as
// (the CLI: the kubeconfig user, or --as). It looks only in the namespace
// the question names, else in Default.
type ClientReader struct {
	// Fetcher reads the objects. Required.
	Fetcher *fetch.Fetcher
	// Default is the namespace when the question names none (the
	// kubeconfig context's, or "default").
	Default string
}

// Namespaces implements Reader.
func (c *ClientReader) Namespaces(_ context.Context, _ rbac.Identity, explicit string) (rbac.Namespaces, error) {
	if explicit != "" {
		return rbac.Namespaces{Names: []string{explicit}, Source: rbac.SourceExplicit}, nil
	}
	ns := c.Default
	if ns == "" {
		ns = "default"
	}
	return rbac.Namespaces{Names: []string{ns}, Source: rbac.SourceConfigured}, nil
}

// List implements Lister with the Fetcher's clients: the same LISTs as
// KubeReader's, as whoever the clients authenticate as.
func (c *ClientReader) List(ctx context.Context, _ rbac.Identity, namespaces []string) (Listing, error) {
	f := c.Fetcher
	return listClients(ctx, fetch.Clients{Kube: f.Kube, Kueue: f.Kueue, Dynamic: f.Dynamic, ClusterScoped: f.ClusterScoped}, namespaces, f.Timeout)
}

// Snapshot implements Reader.
func (c *ClientReader) Snapshot(ctx context.Context, _ rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	return c.Fetcher.Fetch(ctx, t)
}
