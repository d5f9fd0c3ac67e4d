package rbac

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/config"
)

// Client-side rate limits for one question's Clients when the base config
// sets none.
const (
	DefaultQPS   = 50
	DefaultBurst = 100
)

// Clients are API clients that act as one caller through impersonation.
// They share one HTTP client.
type Clients struct {
	// Identity is who the clients impersonate.
	Identity Identity
	// Config is the impersonating rest.Config the clients were built from,
	// for building other clients (it holds the bot's credentials: never log
	// it).
	Config *rest.Config
	// Kube reads core and batch objects.
	Kube kubernetes.Interface
	// Kueue reads Kueue objects, including the visibility API.
	Kueue kueueclient.Interface
	// Dynamic reads job kinds the typed clients do not know (JobSet,
	// RayJob, PyTorchJob, ...).
	Dynamic dynamic.Interface
	// Discovery finds which job kinds the cluster serves.
	Discovery discovery.DiscoveryInterface
}

// ClientsFor returns clients that read as id: it copies base and sets
// Impersonate to id's user, groups and extra (which carries the Slack user
// ID into the API server's audit log). It refuses an empty identity (it
// never falls back to the bot's own identity) and any "system:" user or
// group, system:masters included.
func ClientsFor(base *rest.Config, id Identity) (*Clients, error) {
	if base == nil {
		return nil, errors.New("rbac: ClientsFor: nil base config")
	}
	if err := id.Validate(); err != nil {
		return nil, err
	}
	id = id.clone()
	cfg := rest.CopyConfig(base)
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		// One Clients serves one question; namespace discovery makes one
		// access review per candidate namespace, which client-go's default
		// 5 QPS would stretch to seconds.
		cfg.QPS, cfg.Burst = DefaultQPS, DefaultBurst
	}
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: id.User,
		Groups:   slices.Clone(id.Groups),
		Extra:    maps.Clone(id.Extra),
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("rbac: HTTP client: %w", err)
	}
	kube, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("rbac: kubernetes client: %w", err)
	}
	kq, err := kueueclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("rbac: kueue client: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("rbac: dynamic client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("rbac: discovery client: %w", err)
	}
	return &Clients{Identity: id, Config: cfg, Kube: kube, Kueue: kq, Dynamic: dyn, Discovery: disc}, nil
}

// ClusterScopedClient returns the Kueue clientset the fetcher uses for
// cluster-scoped quota objects (ClusterQueues, ResourceFlavors, Cohorts)
// when kube.clusterScopedReads is "bot": it reads with the bot's own
// identity (base, with any impersonation removed). With "caller" it returns
// nil: the fetcher then reads them through the caller's Clients. Pass the
// result as diagnose/fetch's Fetcher.ClusterScoped.
func ClusterScopedClient(base *rest.Config, policy config.ClusterScopedReads) (kueueclient.Interface, error) {
	switch policy {
	case config.ClusterScopedCaller, "":
		return nil, nil
	case config.ClusterScopedBot:
	default:
		return nil, fmt.Errorf("rbac: unknown clusterScopedReads policy %q", policy)
	}
	if base == nil {
		return nil, errors.New("rbac: ClusterScopedClient: nil base config")
	}
	cfg := rest.CopyConfig(base)
	cfg.Impersonate = rest.ImpersonationConfig{}
	c, err := kueueclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("rbac: bot kueue client: %w", err)
	}
	return c, nil
}
