package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/slack-go/slack/socketmode"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/bot/dispatch"
	"github.com/kueuebot/kueuebot/bot/leader"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/bot/notify"
	"github.com/kueuebot/kueuebot/bot/ops"
	"github.com/kueuebot/kueuebot/bot/transport"
	"github.com/kueuebot/kueuebot/bot/triage"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

type serveOptions struct {
	configPath string
	fromFiles  []string
}

func newServeCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the Slack bot (Socket Mode or the signed HTTP Events API)",
		Long: `Run the Slack bot. It answers mentions, direct messages, the /kueue slash
command, the "Why is this job waiting?" message shortcut, its buttons and the
App Home tab, reading the cluster as each asking user through impersonation,
with the bot's own credentials from kube.kubeconfig (empty: in-cluster).

slack.mode socket (default) connects out to Slack (no inbound traffic);
slack.mode http serves /slack/events, /slack/commands and /slack/interactivity
on slack.listenAddr, checking Slack's signature on every request.
/metrics, /healthz and /readyz are served on ops.listenAddr. On SIGTERM the bot
stops taking questions and answers the ones it accepted for up to
ops.shutdownGrace.

Secrets come from the config file or, better, the environment:
KUEUEBOT_SLACK_BOTTOKEN (xoxb-...), KUEUEBOT_SLACK_APPTOKEN (xapp-..., socket
mode) and KUEUEBOT_SLACK_SIGNINGSECRET (http mode).`,
		Example: `  KUEUEBOT_SLACK_BOTTOKEN=xoxb-... KUEUEBOT_SLACK_APPTOKEN=xapp-... kueuebot serve --config /etc/kueuebot/config.yaml`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringVar(&o.configPath, "config", "", "kueuebot config file (see config/example.yaml)")
	cmd.Flags().StringArrayVar(&o.fromFiles, "from-file", nil, "answer from dumps instead of a cluster (training, demos)")
	return cmd
}

// component is one part of `serve` with the common lifecycle: Run starts
// it and returns when ctx ends (after stopping within the grace) or when it
// fails for good; every error it returns is reported.
type component struct {
	name string
	run  func(ctx context.Context) error
}

func (o *serveOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	if err := cfg.RequireSlack(); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	fromFiles := len(o.fromFiles) > 0

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	botMetrics := metrics.New(reg)

	api := delivery.NewSlackClient(delivery.SlackClientOptions{
		BotToken: cfg.Slack.BotToken.Reveal(), AppToken: cfg.Slack.AppToken.Reveal(),
		APIURL: cfg.Slack.APIURL, Metrics: botMetrics,
	})
	resolver, err := rbac.NewResolver(cfg.Identity, api)
	if err != nil {
		return err
	}
	ex, own, err := newExplainer(cfg, !fromFiles, kubeFlagsFor(cfg.Kube.Kubeconfig, cfg.Kube.Context), o.fromFiles, botMetrics.WrapKubeTransport)
	if err != nil {
		return err
	}
	election, err := newElection(log, own)
	if err != nil {
		return err
	}
	langs := newLanguages(cfg, api, log, election)
	asker := &bot.Asker{Resolve: resolver, Explain: ex, Log: log, Lang: langs}
	asker.Jobs, asker.Queues, asker.Check = ex, ex, ex
	var fleet *explain.Fleet
	if !fromFiles {
		if fleet, err = useFleet(cfg, api, botMetrics.WrapKubeTransport, asker); err != nil {
			return err
		}
	}
	runner, err := newDigestRunner(cfg, api, log, fromFiles, election, ex, fleet)
	if err != nil {
		return err
	}
	notifier, err := newNotifier(cfg, api, log, fromFiles, election, own, resolver, botMetrics)
	if err != nil {
		return err
	}
	if notifier != nil { // a nil *Notifier in the interface would not be nil
		// A subscriber's DMs are in their language: their choice, else their
		// Slack locale (both cached by Languages), else language.default.
		notifier.Lang = langs.For
		asker.Notify = notifier
	}
	replier := &delivery.SlackReplier{API: api}
	handler := &bot.Bot{Asker: asker, Replier: replier, Files: replier, Replies: bot.ReplyMode(cfg.Slack.Replies), Log: log}
	var tri *triage.Triage
	if t := cfg.Triage; len(t.Channels) > 0 {
		tri = triage.New(t.Channels, t.Patterns, t.Detail, t.Window, t.Escalation.UserGroup)
		tri.Lang = cfg.LangOr(t.Language)
		handler.Triage = tri
	}

	ready := &ops.Readiness{}
	opsServer := &ops.Server{Addr: cfg.Ops.ListenAddr, Gatherer: reg, Ready: ready, Log: log}
	if err := opsServer.Listen(); err != nil {
		return fmt.Errorf("ops.listenAddr: %w", err)
	}
	disp := dispatch.New(handler, dispatch.Options{
		Workers: cfg.Ops.Workers, QueueSize: cfg.Ops.QueueSize, Timeout: cfg.Ops.AnswerTimeout,
		Metrics: botMetrics, Log: log, Lang: langs.NoticeLang,
	})
	decoder := &transport.Decoder{Invalidate: resolver, Triage: tri}

	// The components. Answering Slack (and posting digests) is the
	// leader's: with an election, only the holder of the Lease holds the
	// Socket Mode connection, or is the ready replica in HTTP mode.
	var components []component
	var answer func(ctx context.Context) error
	listen := ""
	switch cfg.Slack.Mode {
	case config.ModeHTTP:
		hm := &transport.HTTPMode{
			Addr: cfg.Slack.ListenAddr, SigningSecret: cfg.Slack.SigningSecret.Reveal(), Dispatcher: disp, Decoder: decoder,
			API: api, Ready: ready, Metrics: botMetrics, Log: log, Standby: election != nil,
		}
		if err := hm.Listen(); err != nil {
			return errors.Join(err, closeOps(opsServer), disp.Shutdown(ctx))
		}
		listen = hm.ListenAddr()
		components = append(components, component{"slack-http", hm.Run})
		answer = func(ctx context.Context) error {
			hm.SetActive(true)
			<-ctx.Done()
			hm.SetActive(false)
			return nil
		}
	default:
		answer = func(ctx context.Context) error {
			// A fresh client per term: a standby that takes over opens
			// its own connection.
			sm := &transport.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: decoder, Ready: ready, Metrics: botMetrics, Log: log}
			err := sm.Run(ctx)
			if election != nil {
				ready.Set(true, "standby: another replica holds the Slack connection")
			}
			return err
		}
		if election != nil {
			ready.Set(true, "standby: another replica holds the Slack connection")
		}
	}
	components = append(components, component{"leader", func(ctx context.Context) error {
		return runLeader(ctx, election, answer, runner, notifier)
	}})

	log.InfoContext(ctx, "kueuebot serving", slog.String("version", version), slog.String("mode", cfg.Slack.Mode),
		slog.String("listen", listen), slog.String("replies", cfg.Slack.Replies), slog.String("ops", opsServer.ListenAddr()),
		slog.Bool("fromFiles", fromFiles), slog.String("clusterScopedReads", string(cfg.Kube.ClusterScopedReads)),
		slog.Bool("leaderElection", election != nil))

	runErr := runComponents(ctx, components)
	ready.Set(false, "shutting down")

	// Finish the questions already accepted: their answers are delivered
	// under the dispatcher's own contexts, not the cancelled one.
	log.Info("stopping: answering the questions already accepted", slog.Duration("grace", cfg.Ops.ShutdownGrace))
	grace, cancel := context.WithTimeout(context.Background(), cfg.Ops.ShutdownGrace)
	defer cancel()
	shutErr := disp.Shutdown(grace)
	if shutErr != nil {
		log.Warn("shutdown grace ended before every question was answered", slog.Any("error", shutErr))
		shutErr = fmt.Errorf("dispatcher: %w", shutErr)
	} else {
		log.Info("every accepted question was answered")
	}
	return errors.Join(runErr, shutErr, closeOps(opsServer))
}

// closeOps stops the ops listener (metrics, probes), last.
func closeOps(s *ops.Server) error {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Close(c); err != nil {
		return fmt.Errorf("ops server: %w", err)
	}
	return nil
}

// runComponents runs every component until ctx ends or one fails; then
// the others are stopped, and every error is returned, named.
func runComponents(ctx context.Context, cs []component) error {
	g, gctx := errgroup.WithContext(ctx)
	errs := make([]error, len(cs))
	for i, c := range cs {
		g.Go(func() error {
			if err := c.run(gctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", c.name, err)
				return errs[i]
			}
			return nil
		})
	}
	_ = g.Wait() // every error is in errs
	return errors.Join(errs...)
}

// runLeader runs the leader-only work (answering Slack, digests,
// notifications) while this replica leads, or at once when there is no
// election (one replica: serving from dumps, or no POD_NAMESPACE). A failure of the answering (Slack
// refused the tokens) ends serve.
func runLeader(ctx context.Context, e *leader.Election, answer func(context.Context) error, runner *digests.Runner, notifier *notify.Notifier) error {
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	lead := func(lctx context.Context) {
		var wg sync.WaitGroup
		if runner != nil {
			wg.Go(func() { runner.Lead(lctx) })
		}
		if notifier != nil {
			wg.Go(func() { notifier.Lead(lctx) })
		}
		if err := answer(lctx); err != nil {
			fail(err)
		}
		wg.Wait()
	}
	if e == nil {
		lead(ctx)
	} else if err := leader.Run(ctx, *e, lead); err != nil {
		return err
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
