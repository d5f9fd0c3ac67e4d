package rbac

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kueuebot/kueuebot/config"
)

// TokenSecretName names the ServiceAccount token Secret ClusterObjects
// renders in a remote cluster, from which the bot's kubeconfig for that
// cluster is built.
const TokenSecretName = "kueuebot-token"

// ClusterObjects are the RBAC objects the bot's identity needs in the
// configured cluster name, for a cluster the bot reaches with a kubeconfig
// (a remote one, applied there): its ServiceAccount in ns, a token Secret
// for it (the kubeconfig's credential), and the ClusterRole and binding of
// BotClusterRole narrowed to the identity mapping that applies in that
// cluster and the identities of the digests that name it (digests[].cluster).
// Nothing of the home cluster's: no Lease, no state ConfigMap (leader
// election and the digests' state stay in the bot's own cluster). For the
// in-cluster cluster, BotObjects is the answer.
func ClusterObjects(cfg *config.Config, name, ns string) ([]runtime.Object, error) {
	cl, ok := cfg.ClusterNamed(name)
	if !ok {
		return nil, fmt.Errorf("no cluster %q in the config (clusters: %v)", name, cfg.ClusterNames())
	}
	if cl.InCluster {
		return nil, fmt.Errorf("cluster %q is the bot's own (inCluster): render its RBAC without --cluster", name)
	}
	remote := *cfg
	remote.Identity = cl.ClusterIdentity(cfg.Identity)
	remote.Digests = nil
	for _, d := range cfg.Digests {
		if d.Cluster == name {
			d.Cluster = "" // the cluster the role is applied in
			remote.Digests = append(remote.Digests, d)
		}
	}
	remote.Clusters = nil
	objs := []runtime.Object{BotServiceAccount(ns), botTokenSecret(ns), BotClusterRole(&remote), BotClusterRoleBinding(ns)}
	if role, binding := BotKueueConfigRole(&remote, ns); role != nil {
		objs = append(objs, role, binding)
	}
	return objs, nil
}

// botTokenSecret is a long-lived token of the bot's ServiceAccount in a
// remote cluster, for its kubeconfig there.
func botTokenSecret(ns string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: TokenSecretName, Namespace: ns, Labels: clone(labels),
			Annotations: map[string]string{corev1.ServiceAccountNameKey: BotName}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
}
