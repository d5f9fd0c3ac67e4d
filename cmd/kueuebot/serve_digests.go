package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"

	"github.com/slack-go/slack"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/explain"
)

// startDigests runs cfg's scheduled digests in the background for `serve`:
// the replicas elect a leader on the Lease kueuebot-leader in the bot's
// namespace (POD_NAMESPACE; this replica is POD_NAME), and the leader posts
// each digest at its times, reading as the digest's identity through ex
// (the explainer the bot answers with; base is the bot's own rest.Config). It returns at
// once; stop waits until the digests have stopped (ctx ended). With dumps
// (--from-file; base is nil) there is no cluster to elect a leader in: digests are not
// scheduled (print one with `kueuebot digest --from-file`).
func startDigests(ctx context.Context, cfg *config.Config, api *slack.Client, log *slog.Logger, ex *explain.Explainer, base *rest.Config) (stop func(), err error) {
	noop := func() {}
	if len(cfg.Digests) == 0 {
		return noop, nil
	}
	if base == nil {
		log.Warn("digests are not scheduled when serving from dumps (--from-file)", slog.Int("digests", len(cfg.Digests)))
		return noop, nil
	}
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		return nil, errors.New("digests[] need the bot's namespace for leader election and digest state: set POD_NAMESPACE (the chart and deploy/manifests set it from the downward API)")
	}
	holder := os.Getenv("POD_NAME")
	if holder == "" {
		if holder, err = os.Hostname(); err != nil {
			return nil, errors.New("digests[] need this replica's name: set POD_NAME")
		}
	}
	c, err := newClients(base) // the bot's own identity: its Lease and state
	if err != nil {
		return nil, err
	}
	own := c.Kube
	runner, err := digests.NewRunner(cfg.Digests, digests.Runner{
		Digester: ex,
		Poster:   &digests.SlackPoster{API: api},
		State:    &digests.State{Client: own, Namespace: ns},
		Holder:   holder,
		Log:      log,
	})
	if err != nil {
		return nil, err
	}
	// client-go's leader election logs through klog: into the bot's JSON
	// log, not as unstructured lines on stderr.
	klog.SetSlogLogger(log)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := digests.RunElected(ctx, digests.Election{Client: own, Namespace: ns, Identity: holder, Log: log}, runner.Lead)
		if err != nil {
			log.Error("digests stopped", slog.Any("error", err))
		}
	})
	log.Info("digests scheduled", slog.Any("digests", runner.Names()), slog.String("namespace", ns), slog.String("replica", holder))
	return wg.Wait, nil
}
