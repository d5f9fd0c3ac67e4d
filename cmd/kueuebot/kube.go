package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// kubeFlags are kubectl's own cluster flags, from
// genericclioptions.NewConfigFlags: --kubeconfig, --context, --cluster,
// --user, --server, --token, --as, --as-group, --certificate-authority,
// --insecure-skip-tls-verify, -n/--namespace, --request-timeout and the
// rest, parsed and loaded exactly as kubectl does (KUBECONFIG, then
// ~/.kube/config, then in-cluster). It is the one place every command gets
// its rest.Config and clients from.
type kubeFlags struct {
	flags *genericclioptions.ConfigFlags
	// names are the flags it added, to tell whether any was set.
	names []string
	set   *pflag.FlagSet
}

// newKubeFlags returns kubectl's flags; withNamespace keeps -n/--namespace
// (digest has its own, repeatable, --namespace).
func newKubeFlags(withNamespace bool) *kubeFlags {
	f := genericclioptions.NewConfigFlags(true)
	// kubectl's "0" means no client timeout; kueuebot bounds each request
	// by fetch.DefaultTimeout unless told otherwise.
	timeout := fetch.DefaultTimeout.String()
	f.Timeout = &timeout
	if !withNamespace {
		f.Namespace = nil
	}
	return &kubeFlags{flags: f}
}

// kubeFlagsFor returns the flags a command built in code sets (serve and
// chat: the config's kube.kubeconfig and kube.context; empty: the default
// loading rules, then in-cluster).
func kubeFlagsFor(kubeconfig, kubeContext string) *kubeFlags {
	k := newKubeFlags(true)
	k.flags.KubeConfig, k.flags.Context = &kubeconfig, &kubeContext
	return k
}

// AddFlags adds the flags to fs.
func (k *kubeFlags) AddFlags(fs *pflag.FlagSet) {
	own := pflag.NewFlagSet("kube", pflag.ContinueOnError)
	k.flags.AddFlags(own)
	own.VisitAll(func(f *pflag.Flag) { k.names = append(k.names, "--"+f.Name) })
	fs.AddFlagSet(own)
	k.set = fs
}

// Changed returns the flags of k that were set on the command line.
func (k *kubeFlags) Changed() []string {
	var out []string
	for _, n := range k.names {
		if f := k.set.Lookup(n[2:]); f != nil && f.Changed {
			out = append(out, n)
		}
	}
	return out
}

// RESTConfig loads the rest.Config the flags describe, with kueuebot's
// user agent and, when the kubeconfig sets none, client-side rate limits
// that fit a digest's or a list's LISTs (client-go's default 5 QPS would
// stretch one over 50 namespaces to minutes).
func (k *kubeFlags) RESTConfig() (*rest.Config, error) {
	cfg, err := k.flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot load the kubeconfig: %w (set --kubeconfig or KUBECONFIG, or use --from-file)", err)
	}
	cfg = rest.CopyConfig(cfg) // ConfigFlags caches it: never change the cached one
	cfg.UserAgent = "kueuebot/" + version
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS, cfg.Burst = rbac.DefaultQPS, rbac.DefaultBurst
	}
	return cfg, nil
}

// Namespace is the namespace -n names, else the kubeconfig context's, else
// "default".
func (k *kubeFlags) Namespace() string {
	ns, _, err := k.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}

// ExplicitNamespace is the namespace -n names, or "default": a dump has no
// kubeconfig context.
func (k *kubeFlags) ExplicitNamespace() string {
	if k.flags.Namespace == nil || *k.flags.Namespace == "" {
		return "default"
	}
	return *k.flags.Namespace
}

// flagNamespace is the namespace -n names, "" when it is not given.
func (k *kubeFlags) flagNamespace() string {
	if k.flags.Namespace == nil {
		return ""
	}
	return *k.flags.Namespace
}

// newClients returns the clients every command reads through, acting as
// cfg's identity (the kubeconfig user, --as, or the bot's own), sharing one
// HTTP client: the one place clients are built from a rest.Config (rbac's
// ClientsFor adds impersonation of each caller on top of the bot's).
func newClients(cfg *rest.Config) (fetch.Clients, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return fetch.Clients{}, err
	}
	kube, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return fetch.Clients{}, err
	}
	kq, err := versioned.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return fetch.Clients{}, err
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return fetch.Clients{}, err
	}
	return fetch.Clients{Kube: kube, Kueue: kq, Dynamic: dyn}, nil
}

// newFetcher returns a Fetcher (and, through explain.ClientReader, a
// Lister) reading with cfg's own identity.
func newFetcher(cfg *rest.Config) (*fetch.Fetcher, error) {
	c, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	return &fetch.Fetcher{Kube: c.Kube, Kueue: c.Kueue, Dynamic: c.Dynamic, Timeout: cfg.Timeout}, nil
}
