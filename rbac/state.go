package rbac

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kueuebot/kueuebot/config"
)

// The only objects the bot ever writes, both in its own namespace (from
// the POD_NAMESPACE environment variable, the downward API): the Lease its
// replicas elect the one that posts digests with, and the ConfigMap where
// that leader records which digests it has posted.
const (
	// LeaseName is the coordination.k8s.io Lease of leader election.
	LeaseName = "kueuebot-leader"
	// StateConfigMapName is the ConfigMap of digest state.
	StateConfigMapName = "kueuebot-state"
)

// NeedsStateRole reports whether cfg makes the bot keep state in its
// namespace: only scheduled digests do (and the leader election that makes
// one replica post each).
func NeedsStateRole(cfg *config.Config) bool { return len(cfg.Digests) > 0 }

// BotStateRole is the Role, in the bot's namespace ns, for its Lease and
// state ConfigMap: get and update on exactly those names, and create on
// leases and configmaps, because the API server cannot narrow create by
// resourceNames (the name is not known before the object exists). No list,
// watch, patch or delete, and nothing in any other namespace.
func BotStateRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: BotName, Namespace: ns, Labels: clone(labels)},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{coordinationv1.GroupName}, Resources: []string{"leases"}, Verbs: []string{"get", "update"}, ResourceNames: []string{LeaseName}},
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: []string{StateConfigMapName}},
			{APIGroups: []string{coordinationv1.GroupName}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		},
	}
}

// BotStateRoleBinding binds BotStateRole to the bot's ServiceAccount in ns.
func BotStateRoleBinding(ns string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: BotName, Namespace: ns, Labels: clone(labels)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: BotName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: BotName, Namespace: ns}},
	}
}

// BotObjects is everything the bot's own identity needs for cfg when it
// runs in namespace ns: its ServiceAccount, BotClusterRole and binding,
// and, when NeedsStateRole, BotStateRole and binding. The Helm chart
// renders the same objects (a test proves it).
func BotObjects(cfg *config.Config, ns string) []runtime.Object {
	objs := []runtime.Object{BotServiceAccount(ns), BotClusterRole(cfg), BotClusterRoleBinding(ns)}
	if NeedsStateRole(cfg) {
		objs = append(objs, BotStateRole(ns), BotStateRoleBinding(ns))
	}
	return objs
}
