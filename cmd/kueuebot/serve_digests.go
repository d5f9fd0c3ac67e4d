package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/slack-go/slack"
	"k8s.io/klog/v2"

	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/bot/leader"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/explain"
)

// newElection sets up the election of the one active replica for `serve`:
// the replicas elect a leader on the Lease kueuebot-leader in the bot's
// namespace (POD_NAMESPACE; this replica is POD_NAME, else hostname and
// pid), and only the leader answers Slack and posts digests. own are the
// bot's own clients, nil with dumps (--from-file: no cluster to elect
// in). Without POD_NAMESPACE, or with dumps, there is no election (nil):
// this process is the only replica and answers alone.
func newElection(log *slog.Logger, own *botClients) (*leader.Election, error) {
	ns := os.Getenv("POD_NAMESPACE")
	if own == nil || ns == "" {
		if own != nil {
			log.Info("no POD_NAMESPACE: no leader election, this process answers alone (run one replica)")
		}
		return nil, nil
	}
	identity := os.Getenv("POD_NAME")
	if identity == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, errors.New("leader election needs this replica's name: set POD_NAME")
		}
		identity = fmt.Sprintf("%s_%d", host, os.Getpid())
	}
	// client-go's leader election logs through klog: into the bot's JSON
	// log, not as unstructured lines on stderr.
	klog.SetSlogLogger(log)
	return &leader.Election{Client: own.Kube, Namespace: ns, Identity: identity, Log: log}, nil
}

// newDigestRunner builds the runner of cfg's scheduled digests for
// `serve`: the leader posts each digest at its times, reading as the
// digest's identity through ex (the explainer the bot answers with) or,
// for a digest that names its cluster, through that cluster's explainer
// in fleet, and records the runs in its namespace. nil when there are none; with dumps
// (--from-file, fromFiles) digests are not scheduled (print one with
// `kueuebot digest --from-file`).
func newDigestRunner(cfg *config.Config, api *slack.Client, log *slog.Logger, fromFiles bool, e *leader.Election, ex *explain.Explainer, fleet *explain.Fleet) (*digests.Runner, error) {
	if len(cfg.Digests) == 0 {
		return nil, nil
	}
	if fromFiles {
		log.Warn("digests are not scheduled when serving from dumps (--from-file)", slog.Int("digests", len(cfg.Digests)))
		return nil, nil
	}
	if e == nil {
		return nil, errors.New("digests[] need the bot's namespace for leader election and digest state: set POD_NAMESPACE (the chart and deploy/manifests set it from the downward API)")
	}
	clusters := map[string]digests.Digester{}
	if fleet != nil {
		for _, name := range fleet.Names() {
			clusters[name] = fleet.Cluster(name).Explainer
		}
	}
	runner, err := digests.NewRunner(cfg.Digests, digests.Runner{
		Digester:    ex,
		Clusters:    clusters,
		Poster:      &digests.SlackPoster{API: api},
		State:       &digests.State{Client: e.Client, Namespace: e.Namespace},
		Holder:      e.Identity,
		Log:         log,
		DefaultLang: cfg.DefaultLang(),
	})
	if err != nil {
		return nil, err
	}
	log.Info("digests scheduled", slog.Any("digests", runner.Names()), slog.String("namespace", e.Namespace), slog.String("replica", e.Identity))
	return runner, nil
}
