package main

import (
	"context"
	_ "embed"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/slack-go/slack"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

//go:embed demo.yaml
var demoConfig []byte

type chatOptions struct {
	user       string
	team       string
	configPath string
	kubeconfig string
	context    string
	fromFiles  []string
	verbose    bool
}

func newChatCmd() *cobra.Command {
	o := &chatOptions{}
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk to the bot from the terminal, as a simulated Slack user",
		Long: `Talk to the bot from the terminal. Questions go through the same parsing,
identity mapping and rendering as in Slack (the answer is a text rendering of
the Block Kit message).

Without --kubeconfig it answers from the embedded example dumps, recorded from
the real Kueue. With --kubeconfig (the bot's credentials, e.g. the sandbox's
.sandbox/kubeconfig-kueuebot) it reads the live cluster as the mapped user,
through impersonation.

When standard input is not a terminal it reads one question per line and
exits at the end of input.`,
		Example: `  printf 'why is my job sample-job waiting?\n' | kueuebot chat
  kueuebot chat --user U00000BOB
  kueuebot chat --kubeconfig .sandbox/kubeconfig-kueuebot`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.user, "user", "U0000ALICE", "Slack user ID to ask as (the demo config maps U0000ALICE to alice and U00000BOB to bob)")
	f.StringVar(&o.team, "team", "T0000ACME1", "Slack team (workspace) ID of the user")
	f.StringVar(&o.configPath, "config", "", "kueuebot config file (default: the embedded demo config)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "the bot's kubeconfig: answer from the live cluster")
	f.StringVar(&o.context, "context", "", "kubeconfig context")
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "answer from these dumps instead of the embedded examples")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print the audit line of each question to standard error")
	return cmd
}

func (o *chatOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	var cfg *config.Config
	var err error
	if o.configPath != "" {
		cfg, err = config.Load(o.configPath)
	} else {
		cfg, err = config.Parse(demoConfig)
	}
	if err != nil {
		return err
	}
	resolver, err := rbac.NewResolver(cfg.Identity, newDirectory(cfg.Identity))
	if err != nil {
		return err
	}
	if o.kubeconfig != "" && len(o.fromFiles) > 0 {
		return usagef("use either --kubeconfig or --from-file")
	}
	live := o.kubeconfig != ""
	if live && len(cfg.Clusters) > 0 {
		return usagef("the config lists clusters: drop --kubeconfig (each cluster says how to reach it)")
	}
	ex, _, err := newExplainer(cfg, live, kubeFlagsFor(o.kubeconfig, o.context), o.fromFiles, nil)
	if err != nil {
		return err
	}
	log := slog.New(slog.DiscardHandler)
	if o.verbose {
		log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
	}
	asker := &bot.Asker{Resolve: resolver, Explain: ex, Jobs: ex, Queues: ex, Log: log, Lang: &bot.Languages{Default: cfg.DefaultLang()}}
	if len(o.fromFiles) == 0 && (live || len(cfg.Clusters) > 0) {
		if _, err := useFleet(cfg, newDirectory(cfg.Identity), nil, asker); err != nil {
			return err
		}
	}
	interactive := false
	if f, ok := cmd.InOrStdin().(*os.File); ok {
		interactive = term.IsTerminal(int(f.Fd()))
	}
	user := rbac.SlackUser{ID: o.user, TeamID: o.team}
	if err := bot.Chat(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), user, asker, interactive); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// directory is the simulated Slack workspace of the terminal chat: every
// user the config maps is a regular member, plus an unmapped member
// (U0000CAROL) and a bot (U000000BOT) to show refusals.
type directory struct{ users map[string]slack.User }

func newDirectory(id config.Identity) *directory {
	d := &directory{users: map[string]slack.User{}}
	add := func(u slack.User) { d.users[u.ID] = u }
	for _, m := range id.Users {
		add(slack.User{ID: m.SlackUserID, TeamID: m.TeamID, Name: m.User})
	}
	add(slack.User{ID: "U0000CAROL", TeamID: "T0000ACME1", Name: "carol"})
	add(slack.User{ID: "U000000BOT", TeamID: "T0000ACME1", Name: "somebot", IsBot: true})
	return d
}

func (d *directory) GetUserInfoContext(_ context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	u, ok := d.users[user]
	if !ok {
		return nil, slack.SlackErrorResponse{Err: "user_not_found"}
	}
	return &u, nil
}

func (d *directory) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return nil, nil
}

// newExplainer builds the Explainer the bot answers with: live, reading the
// cluster as each asking user through impersonation (the bot's own
// credentials from kube, kubectl's flags set from the config), or from
// dumps (the given files, else the embedded examples). wrap, when set,
// wraps the transport of every Kubernetes request (metrics). It returns
// the bot's own clients too (nil from dumps), built once, for what reads or
// writes as the bot (leader election, digest state).
func newExplainer(cfg *config.Config, live bool, kube *kubeFlags, fromFiles []string, wrap transport.WrapperFunc) (*explain.Explainer, *botClients, error) {
	if !live {
		var dump *fetch.Dump
		var err error
		if len(fromFiles) > 0 {
			dump, err = fetch.LoadFiles(fromFiles)
		} else {
			dump, err = fetch.LoadFS(examples.FS)
		}
		if err != nil {
			return nil, nil, err
		}
		return &explain.Explainer{Reader: &explain.DumpReader{Dump: dump}}, nil, nil
	}
	base, err := kube.RESTConfig()
	if err != nil {
		return nil, nil, err
	}
	return liveExplainer(cfg, base, wrap)
}

// liveExplainer is the Explainer of one cluster reached with base (the
// bot's own identity there), reading as each caller through impersonation,
// and the bot's own clients there.
func liveExplainer(cfg *config.Config, base *rest.Config, wrap transport.WrapperFunc) (*explain.Explainer, *botClients, error) {
	if wrap != nil {
		base.Wrap(wrap)
	}
	own, err := newClients(base) // the bot's own identity
	if err != nil {
		return nil, nil, err
	}
	kr := &explain.KubeReader{
		Base:    base,
		Finder:  &rbac.NamespaceFinder{Bot: own.Kueue, Max: cfg.Kube.MaxNamespaces, Concurrency: cfg.Kube.DiscoveryConcurrency},
		Timeout: cfg.Kube.RequestTimeout,
		TTL:     cfg.Identity.CacheTTL,
	}
	// clusterScopedReads: bot reads the caller's ClusterQueue, flavors and
	// cohort as the bot; caller: nil, through the caller's clients.
	if kr.ClusterScoped, err = rbac.ClusterScopedClient(base, cfg.Kube.ClusterScopedReads); err != nil {
		return nil, nil, err
	}
	if kc := cfg.Kube.KueueConfig; kc.Enabled() {
		kr.KueueConfig = fetch.KueueConfigMap(own.Kube, kc.Namespace, kc.ConfigMap, kc.Key, 5*time.Minute)
	}
	return &explain.Explainer{Reader: kr}, &botClients{Base: base, Clients: own}, nil
}

// botClients are the bot's own identity's rest.Config and clients (one
// HTTP client), shared by everything serve runs as the bot.
type botClients struct {
	Base *rest.Config
	fetch.Clients
}
