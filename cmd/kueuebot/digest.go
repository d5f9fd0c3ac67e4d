package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

type digestOptions struct {
	name          string
	configPath    string
	namespaces    []string
	localQueues   []string
	clusterQueues []string
	output        string
	post          bool
	channel       string
	fromFiles     []string
	longWait      time.Duration
	stuckAfter    time.Duration
	top           int
	lang          langFlag
	kube          *kubeFlags
}

func newDigestCmd() *cobra.Command {
	o := &digestOptions{}
	cmd := &cobra.Command{
		Use:   "digest",
		Short: "Print or post a pending-queue digest",
		Long: `Print or post a pending-queue digest: totals (pending, admitted, finished in
the last day), each queue's pending count, longest wait and usage against its
nominal quota, the pending workloads grouped by verdict, what needs
someone to act, and the admitted workloads whose pods have not run for
longer than --stuck-after (they hold quota others wait for).

The digest covers --namespace, --local-queue (NAMESPACE/NAME) and
--cluster-queue (each repeatable; dimensions narrow each other), or the
scheduled digest --name of the --config file, read as its configured
identity (impersonated: the kubeconfig's user must be allowed to impersonate
it). Every workload is classified by the same rules as 'kueuebot diagnose',
from paginated LISTs (one per kind and namespace, or per kind cluster-wide
without --namespace; no request per workload), or from a dump with
--from-file.

With a --config that lists clusters[], --cluster NAME reads that configured
cluster with its kubeconfig; a --name digest reads its own cluster
(digests[].cluster; empty: the kubeconfig's, the home cluster).

-o json groups every pending workload under its verdict code. --post posts
the digest to Slack (the --name digest's channel, or --channel) with the
details in a thread, with the bot token of the --config file or
KUEUEBOT_SLACK_BOTTOKEN.

Text and Markdown are in --lang (else LC_ALL, LC_MESSAGES or LANG; JSON is
the same in every language). --post posts in --lang when given, else in the
--name digest's language (digests[].language, else language.default).`,
		Example: `  kueuebot digest --namespace team-a --namespace team-b
  kueuebot digest --cluster-queue gpu -o json
  kueuebot digest --name team-a --config /etc/kueuebot/config.yaml --post
  kueuebot digest --config config.yaml --cluster gpu-west --namespace team-a
  kueuebot digest --from-file dump.yaml -o markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "a digest of the config's digests[] (its scope, identity, thresholds and channel)")
	f.StringVar(&o.configPath, "config", "", "kueuebot config file: the --name digests and the Slack bot token of --post")
	f.StringArrayVar(&o.namespaces, "namespace", nil, "a namespace the digest covers (repeatable)")
	f.StringArrayVar(&o.localQueues, "local-queue", nil, "a LocalQueue NAMESPACE/NAME the digest covers (repeatable)")
	f.StringArrayVar(&o.clusterQueues, "cluster-queue", nil, "a ClusterQueue the digest covers (repeatable)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, markdown or json")
	f.BoolVar(&o.post, "post", false, "post the digest to Slack as well")
	f.StringVar(&o.channel, "channel", "", "the Slack channel ID --post posts to (default: the --name digest's)")
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "read a YAML/JSON dump instead of a cluster (repeatable; file or folder)")
	f.DurationVar(&o.longWait, "long-wait", 0, fmt.Sprintf("a pending workload waiting longer counts as a long wait (default %s, or the --name digest's)", digest.DefaultLongWait))
	f.DurationVar(&o.stuckAfter, "stuck-after", 0, fmt.Sprintf("an admitted workload whose pods do not run for longer is named as stuck (default %s, or the --name digest's)", digest.DefaultStuckAfter))
	o.lang.add(f)
	f.IntVar(&o.top, "top", 0, fmt.Sprintf("how many workloads each short list names (default %d, or the --name digest's)", digest.DefaultTopN))

	// kubectl's flags but -n: --namespace is the digest's scope.
	o.kube = newKubeFlags(false)
	o.kube.AddFlags(f)
	return cmd
}

// digestSpec is what one run computes and where it posts.
type digestSpec struct {
	name    string
	scope   digest.Scope
	opts    digest.Options
	channel string
	// lang is the language of the posted digest: the --name digest's
	// language, else language.default.
	lang i18n.Lang
	// user and groups are the identity the digest reads as ("" for the
	// kubeconfig's own, or --as).
	user   string
	groups []string
	// cluster is the configured cluster to read (--cluster with --config,
	// or the --name digest's cluster); empty: the kubeconfig's.
	cluster string
}

func (o *digestOptions) spec() (*digestSpec, *config.Config, error) {
	if o.top < 0 || o.longWait < 0 || o.stuckAfter < 0 {
		return nil, nil, usagef("--top, --long-wait and --stuck-after must not be negative")
	}
	var cfg *config.Config
	if o.configPath != "" || o.name != "" || o.post {
		var err error
		if cfg, err = config.Load(o.configPath); err != nil {
			return nil, nil, usageError{err}
		}
	}
	s := &digestSpec{name: "ad hoc"}
	if o.name != "" {
		if len(o.namespaces)+len(o.localQueues)+len(o.clusterQueues) > 0 {
			return nil, nil, usagef("--name takes its scope from the config: drop --namespace, --local-queue and --cluster-queue")
		}
		if f := o.kube.flags; *f.Impersonate != "" || len(*f.ImpersonateGroup) > 0 || *f.ImpersonateUID != "" {
			return nil, nil, usagef("--name reads as the digest's configured identity: drop --as and --as-group")
		}
		d, ok := cfg.DigestNamed(o.name)
		if !ok {
			return nil, nil, usagef("no digest named %q in %s (digests: %s)", o.name, orDefaults(o.configPath), digestNames(cfg))
		}
		s = &digestSpec{
			name: d.Name, channel: d.Channel, user: d.User, groups: d.Groups, cluster: d.Cluster, lang: cfg.LangOr(d.Language),
			scope: digest.Scope{Namespaces: d.Namespaces, LocalQueues: d.LocalQueues, ClusterQueues: d.ClusterQueues},
			opts:  digest.Options{LongWait: d.LongWaitOrDefault(), StuckAfter: d.StuckAfterOrDefault(), TopN: d.TopNOrDefault()},
		}
	} else {
		for _, lq := range o.localQueues {
			if ns, n, ok := strings.Cut(lq, "/"); !ok || ns == "" || n == "" || strings.Contains(n, "/") {
				return nil, nil, usagef("--local-queue %q: want NAMESPACE/NAME", lq)
			}
		}
		s.scope = digest.Scope{Namespaces: o.namespaces, LocalQueues: o.localQueues, ClusterQueues: o.clusterQueues}
		s.name = scopeName(s.scope)
	}
	if f := o.kube.flags.ClusterName; cfg != nil && len(cfg.Clusters) > 0 && f != nil && *f != "" {
		if _, ok := cfg.ClusterNamed(*f); !ok {
			return nil, nil, usagef("--cluster %q: no such cluster in %s (clusters: %s)", *f, orDefaults(o.configPath), strings.Join(cfg.ClusterNames(), ", "))
		}
		if s.cluster != "" && s.cluster != *f {
			return nil, nil, usagef("digest %s reads cluster %s: drop --cluster %s, or change the digest's cluster", s.name, s.cluster, *f)
		}
		s.cluster = *f
	}
	if o.longWait > 0 {
		s.opts.LongWait = o.longWait
	}
	if o.stuckAfter > 0 {
		s.opts.StuckAfter = o.stuckAfter
	}
	if o.top > 0 {
		s.opts.TopN = o.top
	}
	if o.channel != "" {
		s.channel = o.channel
	}
	if o.post {
		if s.channel == "" {
			return nil, nil, usagef("--post needs a channel: --channel C..., or a --name digest")
		}
		if cfg.Slack.BotToken.Reveal() == "" {
			return nil, nil, usagef("--post needs the Slack bot token: slack.botToken in --config, or KUEUEBOT_SLACK_BOTTOKEN")
		}
	}
	return s, cfg, nil
}

func digestNames(cfg *config.Config) string {
	var names []string
	for _, d := range cfg.Digests {
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		return "none configured"
	}
	return strings.Join(names, ", ")
}

func orDefaults(path string) string {
	if path == "" {
		return "the default config (no --config given)"
	}
	return path
}

// scopeName names an ad-hoc digest after its scope.
func scopeName(s digest.Scope) string {
	parts := append(append(append([]string(nil), s.Namespaces...), s.LocalQueues...), s.ClusterQueues...)
	if len(parts) == 0 {
		return "all queues"
	}
	return strings.Join(parts, ", ")
}

func (o *digestOptions) run(ctx context.Context, cmd *cobra.Command) error {
	format, err := render.ParseFormat(o.output)
	if err != nil {
		return usageError{err}
	}
	lang, err := o.lang.lang()
	if err != nil {
		return err
	}
	spec, cfg, err := o.spec()
	if err != nil {
		return err
	}
	var ex explain.Explainer
	var id rbac.Identity
	if len(o.fromFiles) > 0 {
		if err := fromFileConflict(o.kube); err != nil {
			return err
		}
		dump, err := fetch.LoadFiles(o.fromFiles)
		if err != nil {
			return fmt.Errorf("cannot read the dump: %w", err)
		}
		ex.Reader = &explain.DumpReader{Dump: dump, Unrestricted: true}
	} else {
		restCfg, err := o.restConfig(cfg, spec)
		if err != nil {
			return err
		}
		if spec.user != "" {
			restCfg.Impersonate = rest.ImpersonationConfig{UserName: spec.user, Groups: spec.groups}
		}
		f, err := newFetcher(restCfg)
		if err != nil {
			return err
		}
		ex.Reader = &explain.ClientReader{Fetcher: f}
	}
	res, err := ex.Digest(ctx, id, explain.DigestQuery{Name: spec.name, Scope: spec.scope, Options: spec.opts})
	if err != nil {
		return fmt.Errorf("cannot read the cluster: %w", err)
	}
	if res.Stats != nil {
		for _, f := range res.Stats.Failed {
			if f.Err != nil && !strings.Contains(f.Err.Error(), "not read") {
				fmt.Fprintf(cmd.ErrOrStderr(), "kueuebot: warning: %s\n", f)
			}
		}
	}
	d := res.Digest
	d.Cluster = spec.cluster
	if err := render.WriteDigestWith(cmd.OutOrStdout(), format, d, render.Options{Lang: lang}); err != nil {
		return err
	}
	if !o.post {
		return nil
	}
	api := delivery.NewSlackClient(delivery.SlackClientOptions{BotToken: cfg.Slack.BotToken.Reveal(), APIURL: cfg.Slack.APIURL})
	postLang := spec.lang
	if o.lang.value != "" {
		postLang = lang
	} else if o.name == "" {
		postLang = cfg.DefaultLang()
	}
	ts, err := digests.Post(ctx, &digests.SlackPoster{API: api}, spec.channel, d, postLang, "", o.cliHint())
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kueuebot: posted digest %q to %s (ts %s)\n", d.Name, spec.channel, ts)
	return nil
}

// restConfig is the bot's rest.Config for the digest: the configured
// cluster it reads (its kubeconfig), else the kubeconfig flags'.
func (o *digestOptions) restConfig(cfg *config.Config, spec *digestSpec) (*rest.Config, error) {
	if spec.cluster == "" {
		return o.kube.RESTConfig()
	}
	for i, cl := range cfg.Clusters {
		if cl.Name == spec.cluster {
			rc, err := clusterRESTConfig(i, cl)
			if err != nil {
				return nil, err
			}
			if f := o.kube.flags; f.Impersonate != nil && *f.Impersonate != "" {
				rc.Impersonate = rest.ImpersonationConfig{UserName: *f.Impersonate}
				if f.ImpersonateGroup != nil {
					rc.Impersonate.Groups = *f.ImpersonateGroup
				}
			}
			return rc, nil
		}
	}
	return nil, usagef("no cluster %q in the config", spec.cluster)
}

// cliHint is the command that prints the whole digest just posted.
func (o *digestOptions) cliHint() string {
	if o.name != "" {
		return "kueuebot digest --name " + o.name + " -o json"
	}
	var b strings.Builder
	b.WriteString("kueuebot digest")
	for _, ns := range o.namespaces {
		b.WriteString(" --namespace " + ns)
	}
	for _, lq := range o.localQueues {
		b.WriteString(" --local-queue " + lq)
	}
	for _, cq := range o.clusterQueues {
		b.WriteString(" --cluster-queue " + cq)
	}
	return b.String() + " -o json"
}
