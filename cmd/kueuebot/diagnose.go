package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

type diagnoseOptions struct {
	configPath string
	fromFiles  []string
	output     string
	kube       *kubeFlags
	lang       langFlag
}

// kindSentence lists the kinds diagnose accepts, from the kind registry
// (the one list of kinds; the README carries the same sentence, checked by
// a test).
func kindSentence() string {
	return "KIND is " + wrap(kinds.Sentence()+".", len("KIND is "), 78)
}

// wrap breaks s into lines of at most width characters, the first line
// starting after offset characters.
func wrap(s string, offset, width int) string {
	var b strings.Builder
	col := offset
	for i, word := range strings.Fields(s) {
		if i > 0 && col+1+len(word) > width {
			b.WriteString("\n")
			col = 0
		} else if i > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}

func newDiagnoseCmd() *cobra.Command {
	o := &diagnoseOptions{}
	cmd := &cobra.Command{
		Use:   "diagnose [KIND/]NAME",
		Short: "Explain why one job is not running",
		Long: `Explain why one job is not running: the admission verdict, the quota
comparison and what to do.

` + kindSentence() + `

Reads the cluster from the kubeconfig (as --as, if given), or a dump written
by 'kubectl get -o yaml' with --from-file (repeatable; files or folders).`,
		Example: `  kueuebot diagnose sample-job -n team-a
  kueuebot diagnose jobset/train -n team-a --as alice -o json
  kueuebot diagnose sample-job -n team-a --from-file deploy/examples/sample-job.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("diagnose takes exactly one [KIND/]NAME argument, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd, args[0])
		},
	}
	f := cmd.Flags()
	o.kube = newKubeFlags(true)
	o.kube.AddFlags(f)
	// kubectl's "0" means no client timeout; the diagnosis still bounds
	// each request, by the default.
	f.Lookup("request-timeout").Usage += fmt.Sprintf(" For a diagnosis, 0 means the default, %s.", fetch.DefaultTimeout)
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "diagnose from a YAML dump instead of a cluster (repeatable; file or folder)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, markdown or json")
	f.StringVar(&o.configPath, "config", "", "kueuebot config whose clusters to look in (each cluster's kubeconfig; --cluster then names one of them, else every one is searched)")
	f.Lookup("cluster").Usage += " With --config listing clusters: the configured cluster to look in."
	o.lang.add(f)
	return cmd
}

// fromFileConflict refuses kubectl's cluster flags next to --from-file (the
// namespace, which says where the job is, and the request timeout
// excepted).
func fromFileConflict(k *kubeFlags) error {
	var set []string
	for _, n := range k.Changed() {
		if n != "--namespace" && n != "--request-timeout" {
			set = append(set, n)
		}
	}
	if len(set) > 0 {
		return usagef("--from-file reads no cluster: drop %s", strings.Join(set, ", "))
	}
	return nil
}

func (o *diagnoseOptions) run(ctx context.Context, cmd *cobra.Command, arg string) error {
	format, err := render.ParseFormat(o.output)
	if err != nil {
		return usageError{err}
	}
	lang, err := o.lang.lang()
	if err != nil {
		return err
	}
	if o.configPath != "" {
		return o.runClusters(ctx, cmd, arg, format, lang)
	}
	var reader explain.Reader
	var ns string
	if len(o.fromFiles) > 0 {
		if err := fromFileConflict(o.kube); err != nil {
			return err
		}
		ns = o.kube.ExplicitNamespace()
		if _, err := fetch.ParseTarget(arg, ns); err != nil {
			return usageError{err}
		}
		dump, err := fetch.LoadFiles(o.fromFiles)
		if err != nil {
			return fmt.Errorf("cannot read the dump: %w", err)
		}
		reader = &explain.DumpReader{Dump: dump, Unrestricted: true}
	} else {
		cfg, err := o.kube.RESTConfig()
		if err != nil {
			return err
		}
		ns = o.kube.Namespace()
		if _, err := fetch.ParseTarget(arg, ns); err != nil {
			return usageError{err}
		}
		f, err := newFetcher(cfg)
		if err != nil {
			return err
		}
		reader = &explain.ClientReader{Fetcher: f, Default: ns}
	}
	target, err := fetch.ParseTarget(arg, ns)
	if err != nil {
		return usageError{err}
	}
	q := explain.Question{Kind: target.Kind, Name: target.Name, Namespace: target.Namespace}
	res, err := (&explain.Explainer{Reader: reader}).Explain(ctx, rbac.Identity{}, q)
	if err != nil {
		return fmt.Errorf("cannot diagnose %s/%s: %w", target.Namespace, target.Name, err)
	}
	return writeReport(cmd.OutOrStdout(), format, &res.Report, lang)
}

// runClusters diagnoses arg in the clusters of the config: the one
// --cluster names, else every one, each read with its kubeconfig (as --as
// and --as-group, when given).
func (o *diagnoseOptions) runClusters(ctx context.Context, cmd *cobra.Command, arg string, format render.Format, lang i18n.Lang) error {
	if len(o.fromFiles) > 0 {
		return usagef("use either --config or --from-file")
	}
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	if len(cfg.Clusters) == 0 {
		return usagef("%s lists no clusters: drop --config, or add clusters[]", o.configPath)
	}
	ns := o.kube.flagNamespace()
	target, err := fetch.ParseTarget(arg, ns)
	if err != nil {
		return usageError{err}
	}
	if ns == "" {
		ns = "default"
	}
	fleet, err := cliFleet(cfg, o.kube, ns)
	if err != nil {
		return err
	}
	q := explain.Question{Kind: target.Kind, Name: target.Name, Namespace: target.Namespace}
	if f := o.kube.flags.ClusterName; f != nil {
		q.Cluster = *f
	}
	res, err := fleet.Explain(ctx, rbac.Identity{}, q)
	if err != nil {
		return fmt.Errorf("cannot diagnose %s/%s: %w", target.Namespace, target.Name, err)
	}
	if len(res.Choices) > 0 {
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "%s is in several clusters; ask again with --cluster:\n", target.Name)
		for _, c := range res.Choices {
			fmt.Fprintf(w, "  --cluster %s\t%s/%s (%s)\n", c.Cluster, c.Target.Namespace, c.Target.Name, c.Verdict)
		}
		for _, l := range res.Report.Clusters {
			if l.Error != "" {
				fmt.Fprintf(w, "%s did not answer: %s\n", l.Cluster, l.Error)
			}
		}
		return errAmbiguous
	}
	return writeReport(cmd.OutOrStdout(), format, &res.Report, lang)
}

// cliFleet is the Fleet of the config's clusters for the CLI: each read
// with its kubeconfig (as --as and --as-group, when given), ns the
// default namespace.
func cliFleet(cfg *config.Config, kube *kubeFlags, ns string) (*explain.Fleet, error) {
	var as rest.ImpersonationConfig
	if f := kube.flags; f.Impersonate != nil {
		as.UserName = *f.Impersonate
		if f.ImpersonateGroup != nil {
			as.Groups = *f.ImpersonateGroup
		}
	}
	clusters := make([]*explain.Cluster, 0, len(cfg.Clusters))
	for i, cl := range cfg.Clusters {
		rc, err := clusterRESTConfig(i, cl)
		if err != nil {
			return nil, err
		}
		rc.Impersonate = as
		f, err := newFetcher(rc)
		if err != nil {
			return nil, err
		}
		clusters = append(clusters, &explain.Cluster{
			Name: cl.Name, MultiKueueCluster: cl.MultiKueueCluster, Timeout: cl.ClusterTimeout(),
			Explainer: &explain.Explainer{Reader: &explain.ClientReader{Fetcher: f, Default: ns}},
		})
	}
	return explain.NewFleet(clusters)
}

// errAmbiguous is diagnose's error when the job is in several clusters
// (the choices are printed).
var errAmbiguous = errors.New("the job is in several clusters: name one with --cluster")
