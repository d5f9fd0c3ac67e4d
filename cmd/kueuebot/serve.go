package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/slack-go/slack/socketmode"
	"github.com/spf13/cobra"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/config"
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

// slackTransport is Socket Mode or HTTP: it runs until ctx ends, then stops
// taking events.
type slackTransport interface {
	Run(ctx context.Context) error
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

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := bot.NewMetrics(reg)

	api := bot.NewSlackClient(bot.SlackClientOptions{
		BotToken: cfg.Slack.BotToken.Reveal(), AppToken: cfg.Slack.AppToken.Reveal(),
		APIURL: cfg.Slack.APIURL, Metrics: metrics,
	})
	resolver, err := rbac.NewResolver(cfg.Identity, api)
	if err != nil {
		return err
	}
	ex, base, err := newExplainer(cfg, len(o.fromFiles) == 0, kubeFlagsFor(cfg.Kube.Kubeconfig, cfg.Kube.Context), o.fromFiles, metrics.WrapKubeTransport)
	if err != nil {
		return err
	}
	asker := &bot.Asker{Resolve: resolver, Explain: ex, Log: log}
	asker.Jobs, asker.Queues = ex, ex
	handler := &bot.Bot{Asker: asker, Replier: &bot.SlackReplier{API: api}, Replies: bot.ReplyMode(cfg.Slack.Replies), Log: log}
	var triage *bot.Triage
	if t := cfg.Triage; len(t.Channels) > 0 {
		triage = bot.NewTriage(t.Channels, t.Patterns, t.Detail, t.Window, t.Escalation.UserGroup)
		handler.Triage = triage
	}
	disp := bot.NewDispatcher(handler, bot.DispatcherOptions{
		Workers: cfg.Ops.Workers, QueueSize: cfg.Ops.QueueSize, Timeout: cfg.Ops.AnswerTimeout,
		Metrics: metrics, Log: log,
	})

	stopDigests, err := startDigests(ctx, cfg, api, log, ex, base)
	if err != nil {
		_ = disp.Shutdown(ctx)
		return err
	}
	defer stopDigests()

	ready := &bot.Readiness{}
	ops := &bot.OpsServer{Addr: cfg.Ops.ListenAddr, Gatherer: reg, Ready: ready, Log: log}
	if err := ops.Listen(); err != nil {
		_ = disp.Shutdown(ctx)
		return fmt.Errorf("ops.listenAddr: %w", err)
	}
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = ops.Close(c)
	}()

	decoder := &bot.Decoder{Invalidate: resolver, Triage: triage}
	var tr slackTransport
	listen := ""
	switch cfg.Slack.Mode {
	case config.ModeHTTP:
		hm := &bot.HTTPMode{
			Addr: cfg.Slack.ListenAddr, SigningSecret: cfg.Slack.SigningSecret.Reveal(), Dispatcher: disp, Decoder: decoder,
			API: api, Ready: ready, Metrics: metrics, Log: log,
		}
		if err := hm.Listen(); err != nil {
			_ = disp.Shutdown(ctx)
			return err
		}
		tr, listen = hm, hm.ListenAddr()
	default:
		tr = &bot.SocketMode{Client: socketmode.New(api), Dispatcher: disp, Decoder: decoder, Ready: ready, Metrics: metrics, Log: log}
	}
	log.InfoContext(ctx, "kueuebot serving", slog.String("version", version), slog.String("mode", cfg.Slack.Mode),
		slog.String("listen", listen), slog.String("replies", cfg.Slack.Replies), slog.String("ops", ops.ListenAddr()),
		slog.Bool("fromFiles", len(o.fromFiles) > 0), slog.String("clusterScopedReads", string(cfg.Kube.ClusterScopedReads)))

	runErr := tr.Run(ctx)
	ready.Set(false, "shutting down")

	// Finish the questions already accepted: their answers are delivered
	// under the dispatcher's own contexts, not the cancelled one.
	log.Info("stopping: answering the questions already accepted", slog.Duration("grace", cfg.Ops.ShutdownGrace))
	grace, cancel := context.WithTimeout(context.Background(), cfg.Ops.ShutdownGrace)
	defer cancel()
	if err := disp.Shutdown(grace); err != nil {
		log.Warn("shutdown grace ended before every question was answered", slog.Any("error", err))
	} else {
		log.Info("every accepted question was answered")
	}
	return runErr
}
