package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
)

type diagnoseOptions struct {
	namespace  string
	kubeconfig string
	context    string
	as         string
	asGroups   []string
	fromFiles  []string
	output     string
	timeout    time.Duration
}

// kindSentence lists the kinds diagnose accepts, from fetch's registry (the
// one list of kinds; the README carries the same sentence, checked by a test).
func kindSentence() string {
	var names []string
	for _, k := range fetch.Kinds() {
		names = append(names, k.Kind)
	}
	names[0] += " (default)"
	last := len(names) - 1
	names[last] = "or " + names[last]
	return "KIND is " + wrap(strings.Join(names, ", ")+".", len("KIND is "), 78)
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
	f.StringVarP(&o.namespace, "namespace", "n", "", "namespace of the job (default: the kubeconfig context's namespace, or \"default\")")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file")
	f.StringVar(&o.context, "context", "", "kubeconfig context to use")
	f.StringVar(&o.as, "as", "", "user to impersonate for every read")
	f.StringArrayVar(&o.asGroups, "as-group", nil, "group to impersonate (repeatable)")
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "diagnose from a YAML dump instead of a cluster (repeatable; file or folder)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, markdown or json")
	f.DurationVar(&o.timeout, "request-timeout", fetch.DefaultTimeout, "timeout of each API request")
	return cmd
}

func (o *diagnoseOptions) run(ctx context.Context, cmd *cobra.Command, arg string) error {
	format, err := render.ParseFormat(o.output)
	if err != nil {
		return usageError{err}
	}
	var snap *diagnose.Snapshot
	if len(o.fromFiles) > 0 {
		if o.kubeconfig != "" || o.context != "" || o.as != "" || len(o.asGroups) > 0 {
			return usagef("--from-file reads no cluster: drop --kubeconfig, --context, --as and --as-group")
		}
		ns := o.namespace
		if ns == "" {
			ns = "default"
		}
		target, err := fetch.ParseTarget(arg, ns)
		if err != nil {
			return usageError{err}
		}
		snap, err = fetch.FromFiles(o.fromFiles, target, time.Now())
		if err != nil {
			return fmt.Errorf("cannot read the dump: %w", err)
		}
	} else {
		cfg, ns, err := o.restConfig()
		if err != nil {
			return err
		}
		target, err := fetch.ParseTarget(arg, ns)
		if err != nil {
			return usageError{err}
		}
		f, err := newFetcher(cfg, o.timeout)
		if err != nil {
			return err
		}
		snap, err = f.Fetch(ctx, target)
		if err != nil {
			return fmt.Errorf("cannot diagnose %s/%s: %w", target.Namespace, target.Name, err)
		}
	}
	r := diagnose.Analyze(snap)
	return render.Write(cmd.OutOrStdout(), format, &r)
}

// restConfig loads the kubeconfig like kubectl does and applies the
// impersonation flags.
func (o *diagnoseOptions) restConfig() (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.kubeconfig != "" {
		rules.ExplicitPath = o.kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	overrides.AuthInfo.Impersonate = o.as
	overrides.AuthInfo.ImpersonateGroups = o.asGroups
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("cannot load the kubeconfig: %w (set --kubeconfig or KUBECONFIG, or use --from-file)", err)
	}
	ns := o.namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil || ns == "" {
			ns = "default"
		}
	}
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
