package main

import (
	"errors"
	"log/slog"

	"github.com/slack-go/slack"
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
		Short: "Run the Slack bot (Socket Mode)",
		Long: `Run the Slack bot. It connects out to Slack over Socket Mode (no inbound
traffic), answers mentions, direct messages and the /kueue slash command, and
reads the cluster as each asking user through impersonation, with the bot's
own credentials from kube.kubeconfig (empty: in-cluster).

Tokens come from the config file or, better, the environment:
KUEUEBOT_SLACK_BOTTOKEN (xoxb-...) and KUEUEBOT_SLACK_APPTOKEN (xapp-...).`,
		Example: `  KUEUEBOT_SLACK_BOTTOKEN=xoxb-... KUEUEBOT_SLACK_APPTOKEN=xapp-... kueuebot serve --config /etc/kueuebot/config.yaml`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringVar(&o.configPath, "config", "", "kueuebot config file (see config/example.yaml)")
	cmd.Flags().StringArrayVar(&o.fromFiles, "from-file", nil, "answer from dumps instead of a cluster (training, demos)")
	return cmd
}

func (o *serveOptions) run(cmd *cobra.Command) error {
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	if err := cfg.RequireSlack(); err != nil {
		return err
	}
	if cfg.Slack.Mode != config.ModeSocket {
		return errors.New("slack.mode http is not implemented yet: use socket (Socket Mode needs no inbound traffic)")
	}
	opts := []slack.Option{slack.OptionAppLevelToken(cfg.Slack.AppToken.Reveal())}
	if cfg.Slack.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(cfg.Slack.APIURL))
	}
	api := slack.New(cfg.Slack.BotToken.Reveal(), opts...)
	resolver, err := rbac.NewResolver(cfg.Identity, api)
	if err != nil {
		return err
	}
	ex, err := newExplainer(cfg, len(o.fromFiles) == 0, cfg.Kube.Kubeconfig, cfg.Kube.Context, o.fromFiles)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	sm := &bot.SocketMode{
		Client:     socketmode.New(api),
		Asker:      &bot.Asker{Resolve: resolver, Explain: ex, Log: log},
		Log:        log,
		Invalidate: resolver,
	}
	log.InfoContext(cmd.Context(), "kueuebot serving", slog.String("version", version), slog.String("mode", cfg.Slack.Mode),
		slog.Bool("fromFiles", len(o.fromFiles) > 0), slog.String("clusterScopedReads", string(cfg.Kube.ClusterScopedReads)))
	return sm.Run(cmd.Context())
}
