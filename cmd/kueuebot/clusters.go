package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// clusterRESTConfig is the bot's own rest.Config in one configured
// cluster: in-cluster, or its kubeconfig file (and context).
func clusterRESTConfig(i int, cl config.Cluster) (*rest.Config, error) {
	if cl.InCluster {
		c, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("clusters[%d] (%s): inCluster: %w", i, cl.Name, err)
		}
		c.UserAgent = "kueuebot/" + version
		if c.QPS == 0 && c.RateLimiter == nil {
			c.QPS, c.Burst = rbac.DefaultQPS, rbac.DefaultBurst
		}
		return c, nil
	}
	if _, err := os.Stat(cl.Kubeconfig); err != nil {
		return nil, fmt.Errorf("clusters[%d] (%s): kubeconfig %s: %w (mount the cluster's kubeconfig Secret there)", i, cl.Name, cl.Kubeconfig, err)
	}
	c, err := kubeFlagsFor(cl.Kubeconfig, cl.Context).RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("clusters[%d] (%s): %w", i, cl.Name, err)
	}
	return c, nil
}

// newFleet builds the configured clusters once: per cluster its rest.Config,
// the bot's own clients, namespace discovery and the bounded per-identity
// cache of impersonating fetchers (explain.KubeReader), and, for a cluster
// with its own identity mapping, a Resolver of that mapping (over the same
// Slack API, its caches bounded as the top-level one's). Nil without
// clusters.
func newFleet(cfg *config.Config, api rbac.SlackAPI, wrap transport.WrapperFunc) (*explain.Fleet, error) {
	if len(cfg.Clusters) == 0 {
		return nil, nil
	}
	clusters := make([]*explain.Cluster, 0, len(cfg.Clusters))
	for i, cl := range cfg.Clusters {
		base, err := clusterRESTConfig(i, cl)
		if err != nil {
			return nil, err
		}
		ex, _, err := liveExplainer(cfg, base, wrap)
		if err != nil {
			return nil, fmt.Errorf("clusters[%d] (%s): %w", i, cl.Name, err)
		}
		c := &explain.Cluster{Name: cl.Name, MultiKueueCluster: cl.MultiKueueCluster, Explainer: ex, Timeout: cl.ClusterTimeout()}
		if cl.Identity != nil {
			if api == nil {
				return nil, fmt.Errorf("clusters[%d] (%s): an identity mapping needs the Slack API", i, cl.Name)
			}
			r, err := rbac.NewResolver(cl.ClusterIdentity(cfg.Identity), api)
			if err != nil {
				return nil, fmt.Errorf("clusters[%d] (%s): %w", i, cl.Name, err)
			}
			c.Identity = resolverMapper(r)
		}
		clusters = append(clusters, c)
	}
	return explain.NewFleet(clusters)
}

// resolverMapper maps a caller to a cluster with its own identity mapping:
// the Slack user of the question (rbac.WithSlackUser) resolved with that
// mapping. A user the mapping refuses is not mapped there.
func resolverMapper(r *rbac.Resolver) explain.IdentityMapper {
	return func(ctx context.Context, _ rbac.Identity) (rbac.Identity, bool, error) {
		u, ok := rbac.SlackUserFrom(ctx)
		if !ok {
			return rbac.Identity{}, false, nil
		}
		id, err := r.Resolve(ctx, u)
		if _, refused := rbac.IsRefused(err); refused {
			return rbac.Identity{}, false, nil
		}
		if err != nil {
			return rbac.Identity{}, false, err
		}
		if id.User == "" {
			return rbac.Identity{}, false, errors.New("empty identity")
		}
		return id, true, nil
	}
}

// useFleet points the asker's questions, job and queue lists and
// manifest checks at the configured clusters (nothing without clusters),
// and returns the Fleet (nil without clusters).
func useFleet(cfg *config.Config, api rbac.SlackAPI, wrap transport.WrapperFunc, a *bot.Asker) (*explain.Fleet, error) {
	fleet, err := newFleet(cfg, api, wrap)
	if err != nil || fleet == nil {
		return nil, err
	}
	a.Explain, a.Jobs, a.Queues, a.Check = fleet, fleet, fleet, fleet
	return fleet, nil
}
