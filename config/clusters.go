package config

import (
	"fmt"
	"regexp"
	"slices"
	"time"
)

// Cluster is one Kubernetes cluster the bot answers questions about. With
// no clusters configured the bot reads the one cluster of kube (in-cluster
// or kube.kubeconfig), as before. With clusters, a question that names a
// cluster ("on gpu-west", --cluster) is answered there; one that does not
// is looked for in every cluster where the asker is mapped, in parallel and
// as the asker in each. kube still says how the bot reaches its home
// cluster for what it reads and writes as itself (leader election, digest
// state), and its other keys (requestTimeout, clusterScopedReads,
// maxNamespaces, discoveryConcurrency, kueueConfig) apply in every cluster.
type Cluster struct {
	// Name names the cluster in answers and questions ("on gpu-west",
	// `kueuebot diagnose --cluster gpu-west`): a lower-case DNS label
	// (letters, digits and '-', at most 63), unique.
	Name string `mapstructure:"name"`
	// InCluster reads the cluster the bot runs in, with its service
	// account. Set it or Kubeconfig, not both; at most one cluster is
	// in-cluster.
	InCluster bool `mapstructure:"inCluster"`
	// Kubeconfig is the path of a kubeconfig file for this cluster (e.g.
	// mounted from a Secret); exec and OIDC plugins work as client-go
	// supports them. It must name the bot's own identity there, which
	// impersonates each asker.
	Kubeconfig string `mapstructure:"kubeconfig"`
	// Context is the kubeconfig context; empty means the file's current one.
	Context string `mapstructure:"context"`
	// MultiKueueCluster is the name of the MultiKueueCluster object that
	// points at this cluster from a MultiKueue manager: a job the manager
	// dispatched there is followed into this cluster and diagnosed there,
	// read as the same asker. Empty: this cluster is no configured worker.
	MultiKueueCluster string `mapstructure:"multiKueueCluster"`
	// Timeout bounds the look-up of one question in this cluster when a
	// question is looked for in several: a cluster that takes longer is
	// named in the answer as one that did not answer. 0 means
	// DefaultClusterTimeout.
	Timeout time.Duration `mapstructure:"timeout"`
	// Identity, when set, replaces the top-level identity mapping in this
	// cluster (users, email, userGroups; refusalContact and cacheTTL are
	// inherited when empty): the same Slack user may be another Kubernetes
	// user or group here, or not mapped at all, and then this cluster is
	// not searched for them. Unset: the top-level mapping applies.
	Identity *Identity `mapstructure:"identity"`
}

// DefaultClusterTimeout bounds one cluster's look-up when a question is
// looked for in several clusters and the cluster sets no timeout.
const DefaultClusterTimeout = 10 * time.Second

// reClusterName is a DNS label: what a cluster name may be.
var reClusterName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// ClusterTimeout is the cluster's look-up timeout, defaulted.
func (c Cluster) ClusterTimeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultClusterTimeout
}

// ClusterIdentity is the identity mapping that applies in cluster c: its
// own, with refusalContact and cacheTTL inherited from top, or top itself.
func (c Cluster) ClusterIdentity(top Identity) Identity {
	if c.Identity == nil {
		return top
	}
	id := *c.Identity
	if id.RefusalContact == "" {
		id.RefusalContact = top.RefusalContact
	}
	if id.CacheTTL == 0 {
		id.CacheTTL = top.CacheTTL
	}
	if id.Email.UserTemplate == "" {
		id.Email.UserTemplate = "{{.Email}}"
	}
	return id
}

// ClusterNamed returns the configured cluster called name.
func (c *Config) ClusterNamed(name string) (Cluster, bool) {
	for _, cl := range c.Clusters {
		if cl.Name == name {
			return cl, true
		}
	}
	return Cluster{}, false
}

// ClusterNames are the configured clusters' names, in config order.
func (c *Config) ClusterNames() []string {
	out := make([]string, 0, len(c.Clusters))
	for _, cl := range c.Clusters {
		out = append(out, cl.Name)
	}
	return out
}

func (c *Config) validateClusters(errs *errList) {
	var names, mks []string
	inCluster := -1
	for i, cl := range c.Clusters {
		key := fmt.Sprintf("clusters[%d]", i)
		switch {
		case !reClusterName.MatchString(cl.Name):
			errs.addf(key+".name", "got %q, want a lower-case DNS label (letters, digits and '-', at most 63), e.g. \"gpu-west\"", cl.Name)
		case slices.Contains(names, cl.Name):
			errs.addf(key+".name", "%q is the name of clusters[%d]; each cluster needs its own name", cl.Name, slices.Index(names, cl.Name))
		}
		names = append(names, cl.Name)
		switch {
		case cl.InCluster && cl.Kubeconfig != "":
			errs.addf(key, "cluster %q sets both inCluster and kubeconfig; keep one", cl.Name)
		case !cl.InCluster && cl.Kubeconfig == "":
			errs.addf(key+".kubeconfig", "cluster %q has no kubeconfig: set the path of its kubeconfig file (e.g. mounted from a Secret), or inCluster: true for the cluster the bot runs in", cl.Name)
		case cl.InCluster && inCluster >= 0:
			errs.addf(key+".inCluster", "cluster %q is in-cluster, and so is clusters[%d]: the bot runs in one cluster", cl.Name, inCluster)
		case cl.InCluster:
			inCluster = i
		}
		if cl.InCluster && cl.Context != "" {
			errs.addf(key+".context", "cluster %q is in-cluster and has no kubeconfig context; drop context %q", cl.Name, cl.Context)
		}
		if mk := cl.MultiKueueCluster; mk != "" {
			switch {
			case !reDomain.MatchString(mk) && !reNamespace.MatchString(mk):
				errs.addf(key+".multiKueueCluster", "got %q, want the name of a MultiKueueCluster object, e.g. \"worker-west\"", mk)
			case slices.Contains(mks, mk):
				errs.addf(key+".multiKueueCluster", "MultiKueueCluster %q already points at another configured cluster; one MultiKueueCluster reaches one cluster", mk)
			}
			mks = append(mks, mk)
		}
		if cl.Timeout < 0 || cl.Timeout > 5*time.Minute {
			errs.addf(key+".timeout", "got %s, want a duration between 1s and 5m (0: %s)", cl.Timeout, DefaultClusterTimeout)
		}
		if cl.Identity != nil {
			validateIdentity(errs, key+".identity", cl.ClusterIdentity(c.Identity))
		}
	}
}
