package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/slack-go/slack"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kueuebot/kueuebot/bot/leader"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/notify"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/rbac"
)

// newNotifier builds "Tell me when it starts" for `serve` when
// notify.enabled: the leader watches the subscriptions, kept in the bot's
// namespace, and reads every job as its subscriber (impersonating the
// identity resolver gives, through the bot's own config). nil when disabled; with dumps
// (--from-file) there is nothing to watch.
func newNotifier(cfg *config.Config, api *slack.Client, log *slog.Logger, fromFiles bool, e *leader.Election, bot *botClients, resolver notify.Resolver, m *metrics.Metrics) (*notify.Notifier, error) {
	if !cfg.Notify.Enabled {
		return nil, nil
	}
	if fromFiles {
		log.Warn("notifications are off when serving from dumps (--from-file)")
		return nil, nil
	}
	if e == nil || bot == nil {
		return nil, errors.New("notify.enabled needs the bot's namespace for leader election and subscriptions: set POD_NAMESPACE (the chart and deploy/manifests set it from the downward API)")
	}
	// The bot's own client for the subscription ConfigMaps, with room for
	// a burst of DMs (two batched writes each).
	base := bot.Base
	own := rest.CopyConfig(base)
	own.QPS, own.Burst = rbac.DefaultQPS, rbac.DefaultBurst
	store, err := kubernetes.NewForConfig(own)
	if err != nil {
		return nil, err
	}
	clusters, err := notifyClusters(cfg, api, resolver)
	if err != nil {
		return nil, err
	}
	n := notify.New(notify.Notifier{
		Store:       &notify.Store{Client: store, Namespace: e.Namespace},
		Slack:       api,
		Resolve:     resolver,
		Clients:     func(id rbac.Identity) (*rbac.Clients, error) { return rbac.ClientsFor(base, id) },
		Clusters:    clusters,
		Holder:      e.Identity,
		MaxPerUser:  cfg.Notify.MaxPerUser,
		ExpireAfter: cfg.Notify.ExpireAfter,
		Log:         log,
		Told: func(_ notify.Subscription, ev notify.Event, seen, posted time.Time) {
			m.Notified(string(ev.Type), seen, posted)
		},
	})
	log.Info("notifications on", slog.String("namespace", e.Namespace), slog.Int("clusters", len(clusters)), slog.Int("maxPerUser", cfg.Notify.MaxPerUser), slog.Duration("expireAfter", cfg.Notify.ExpireAfter))
	return n, nil
}

// notifyClusters are the configured clusters as the notifier reads them:
// each cluster's own rest.Config (its kubeconfig, or in-cluster) and the
// subscriber resolved with that cluster's identity mapping (its own, or
// top, the top-level one). A subscription to a job found in one of them
// (its answer's cluster) is watched there.
func notifyClusters(cfg *config.Config, api rbac.SlackAPI, top notify.Resolver) (map[string]notify.Cluster, error) {
	out := map[string]notify.Cluster{}
	for i, cl := range cfg.Clusters {
		base, err := clusterRESTConfig(i, cl)
		if err != nil {
			return nil, err
		}
		c := notify.Cluster{Resolve: top, Clients: func(id rbac.Identity) (*rbac.Clients, error) { return rbac.ClientsFor(base, id) }}
		if cl.Identity != nil {
			r, err := rbac.NewResolver(cl.ClusterIdentity(cfg.Identity), api)
			if err != nil {
				return nil, fmt.Errorf("clusters[%d] (%s): %w", i, cl.Name, err)
			}
			c.Resolve = r
		}
		out[cl.Name] = c
	}
	return out, nil
}
