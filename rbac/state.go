package rbac

import (
	"strconv"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kueuebot/kueuebot/config"
)

// The only objects the bot ever writes, all in its own namespace (from
// the POD_NAMESPACE environment variable, the downward API): the Lease its
// replicas elect the one active replica with (it answers Slack, posts
// digests and notifications), the ConfigMap where that leader records
// which digests it has posted, the ConfigMaps of notification
// subscriptions, and the ConfigMap of the languages users chose.
const (
	// LeaseName is the coordination.k8s.io Lease of leader election.
	LeaseName = "kueuebot-leader"
	// StateConfigMapName is the ConfigMap of digest state.
	StateConfigMapName = "kueuebot-state"
	// NotifyConfigMapPrefix starts the names of the ConfigMaps that hold
	// notification subscriptions: NotifyConfigMapPrefix + "0" to
	// NotifyConfigMapPrefix + "7" (NotifyShards), each holding the
	// subscriptions of the Slack users hashed to it.
	NotifyConfigMapPrefix = "kueuebot-notify-"
	// NotifyShards is how many subscription ConfigMaps there are.
	NotifyShards = 8
	// LangConfigMapName is the ConfigMap of the languages users asked to
	// be answered in ("answer in English", the App Home selector).
	LangConfigMapName = "kueuebot-lang"
)

// NotifyConfigMapNames are the names of the subscription ConfigMaps.
func NotifyConfigMapNames() []string {
	names := make([]string, NotifyShards)
	for i := range names {
		names[i] = NotifyConfigMapPrefix + strconv.Itoa(i)
	}
	return names
}

// NeedsStateRole reports whether cfg makes the bot keep digest state in
// its namespace: only scheduled digests do.
func NeedsStateRole(cfg *config.Config) bool { return len(cfg.Digests) > 0 }

// NeedsNotifyState reports whether cfg makes the bot keep notification
// subscriptions in its namespace (notify.enabled).
func NeedsNotifyState(cfg *config.Config) bool { return cfg.Notify.Enabled }

// BotStateRole is the Role, in the bot's namespace ns, for its Lease, the
// language ConfigMap and the digest-state ConfigMap: get and update on
// exactly those names, and create on leases and configmaps, because the API server cannot narrow
// create by resourceNames (the name is not known before the object
// exists). No list, watch, patch or delete, and nothing in any other
// namespace.
func BotStateRole(ns string) *rbacv1.Role { return botRole(ns, true, false) }

// BotRole is BotStateRole for cfg: the Lease rules always (every replica
// takes part in the election of the one that answers), the language
// ConfigMap's always (any user may say "answer in English"), the digest-state
// ConfigMap rules only when cfg schedules digests, and the subscription
// ConfigMaps' (get and update narrowed to NotifyConfigMapNames) only when
// notifications are enabled.
func BotRole(cfg *config.Config, ns string) *rbacv1.Role {
	return botRole(ns, NeedsStateRole(cfg), NeedsNotifyState(cfg))
}

func botRole(ns string, digestState, notifyState bool) *rbacv1.Role {
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{coordinationv1.GroupName}, Resources: []string{"leases"}, Verbs: []string{"get", "update"}, ResourceNames: []string{LeaseName}},
		{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: []string{LangConfigMapName}},
	}
	if digestState {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: []string{StateConfigMapName}})
	}
	if notifyState {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: NotifyConfigMapNames()})
	}
	rules = append(rules,
		rbacv1.PolicyRule{APIGroups: []string{coordinationv1.GroupName}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		rbacv1.PolicyRule{APIGroups: []string{corev1.GroupName}, Resources: []string{"configmaps"}, Verbs: []string{"create"}})
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: BotName, Namespace: ns, Labels: clone(labels)},
		Rules:      rules,
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
// BotRole (the Lease; digest state when NeedsStateRole; subscriptions when
// NeedsNotifyState) and binding, and,
// when kube.kueueConfig is set, BotKueueConfigRole and binding in Kueue's
// namespace. The Helm chart renders the same objects (a test proves it).
func BotObjects(cfg *config.Config, ns string) []runtime.Object {
	objs := []runtime.Object{BotServiceAccount(ns), BotClusterRole(cfg), BotClusterRoleBinding(ns), BotRole(cfg, ns), BotStateRoleBinding(ns)}
	if role, binding := BotKueueConfigRole(cfg, ns); role != nil {
		objs = append(objs, role, binding)
	}
	return objs
}
