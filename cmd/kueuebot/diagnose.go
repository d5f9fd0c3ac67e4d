package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

type diagnoseOptions struct {
	namespace  string
	kubeconfig string
	context    string
	as         string
	asGroups   []string
	fromFiles  []string
	output     string
	timeout    time.Duration // from --request-timeout, set by restConfig

	clusterFlags   *genericclioptions.ConfigFlags
	requestTimeout string
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
	o.addClusterFlags(f)
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "diagnose from a YAML dump instead of a cluster (repeatable; file or folder)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, markdown or json")
	return cmd
}

// addClusterFlags adds kubectl's own cluster flags (--kubeconfig,
// --context, --as, --as-group, -n/--namespace, --request-timeout) from
// genericclioptions.ConfigFlags, so they parse and load exactly as in
// kubectl; the values land in o's fields.
func (o *diagnoseOptions) addClusterFlags(f *pflag.FlagSet) {
	o.requestTimeout = fetch.DefaultTimeout.String()
	o.clusterFlags = &genericclioptions.ConfigFlags{
		KubeConfig:       &o.kubeconfig,
		Context:          &o.context,
		Impersonate:      &o.as,
		ImpersonateGroup: &o.asGroups,
		Namespace:        &o.namespace,
		Timeout:          &o.requestTimeout,
	}
	o.clusterFlags.AddFlags(f)
	// kubectl's "0" means no client timeout; the diagnosis still bounds
	// each request, by the default.
	f.Lookup("request-timeout").Usage += fmt.Sprintf(" For a diagnosis, 0 means the default, %s.", fetch.DefaultTimeout)
}

func (o *diagnoseOptions) run(ctx context.Context, cmd *cobra.Command, arg string) error {
	format, err := render.ParseFormat(o.output)
	if err != nil {
		return usageError{err}
	}
	var reader explain.Reader
	ns := o.namespace
	if len(o.fromFiles) > 0 {
		if o.kubeconfig != "" || o.context != "" || o.as != "" || len(o.asGroups) > 0 {
			return usagef("--from-file reads no cluster: drop --kubeconfig, --context, --as and --as-group")
		}
		if ns == "" {
			ns = "default"
		}
		if _, err := fetch.ParseTarget(arg, ns); err != nil {
			return usageError{err}
		}
		dump, err := fetch.LoadFiles(o.fromFiles)
		if err != nil {
			return fmt.Errorf("cannot read the dump: %w", err)
		}
		reader = &explain.DumpReader{Dump: dump, Unrestricted: true}
	} else {
		cfg, kubeNS, err := o.restConfig()
		if err != nil {
			return err
		}
		ns = kubeNS
		if _, err := fetch.ParseTarget(arg, ns); err != nil {
			return usageError{err}
		}
		f, err := newFetcher(cfg, o.timeout)
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
	return render.Write(cmd.OutOrStdout(), format, &res.Report)
}

// restConfig loads the kubeconfig as kubectl does (KUBECONFIG, --kubeconfig,
// --context, --as, --as-group, -n, --request-timeout through
// genericclioptions.ConfigFlags) and sets o.timeout from --request-timeout.
func (o *diagnoseOptions) restConfig() (*rest.Config, string, error) {
	if o.clusterFlags == nil {
		// Options built in code (serve, chat), not parsed from flags.
		o.addClusterFlags(pflag.NewFlagSet("kueuebot", pflag.ContinueOnError))
	}
	cfg, err := o.clusterFlags.ToRESTConfig()
	if err != nil {
		return nil, "", fmt.Errorf("cannot load the kubeconfig: %w (set --kubeconfig or KUBECONFIG, or use --from-file)", err)
	}
	ns, _, err := o.clusterFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	o.timeout = cfg.Timeout
	cfg.UserAgent = "kueuebot/" + version
	return cfg, ns, nil
}

func newFetcher(cfg *rest.Config, timeout time.Duration) (*fetch.Fetcher, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	kq, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &fetch.Fetcher{Kube: kube, Kueue: kq, Dynamic: dyn, Timeout: timeout}, nil
}
