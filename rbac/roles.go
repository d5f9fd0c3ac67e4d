package rbac

import (
	"bytes"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/kinds"
)

// Names of the objects deploy/rbac ships.
const (
	// BotName names the bot's ServiceAccount, ClusterRole and
	// ClusterRoleBinding.
	BotName = "kueuebot"
	// ReaderName names the ClusterRole platform teams bind per namespace to
	// let people read their jobs through the bot.
	ReaderName = "kueuebot-reader"
	// DefaultNamespace is where deploy/ installs the bot.
	DefaultNamespace = "kueuebot"
)

var labels = map[string]string{"app.kubernetes.io/name": "kueuebot", "app.kubernetes.io/component": "rbac"}

// BotClusterRole is the bot's own ClusterRole, narrowed to what cfg maps:
//
//   - impersonate users: the users of identity.users and digests by
//     resourceNames; every user when identity.email is enabled (the names
//     come from Slack at run time and cannot be listed);
//   - impersonate groups: every group the config maps, by resourceNames
//     (no rule when none);
//   - impersonate userextras/kueuebot.io/slack-user-id: the Slack user IDs
//     of identity.users by resourceNames; any value when email is enabled;
//   - list LocalQueues (to learn candidate namespaces);
//   - only with kube.clusterScopedReads: bot, get/list ClusterQueues,
//     ResourceFlavors, Cohorts, Topologies (those the caller's flavors
//     name) and WorkloadPriorityClasses (a job without
//     a Workload names a class; whether it exists says why Kueue made none:
//     get for one question, list for lists and digests).
//
// Nothing else: no Secrets, no writes. An empty resourceNames list would
// mean "all", so a rule whose list would be empty is left out.
func BotClusterRole(cfg *config.Config) *rbacv1.ClusterRole {
	var users, groups, slackIDs []string
	for _, u := range cfg.Identity.Users {
		users = append(users, u.User)
		groups = append(groups, u.Groups...)
		slackIDs = append(slackIDs, u.SlackUserID)
	}
	groups = append(groups, cfg.Identity.Email.Groups...)
	for _, g := range cfg.Identity.UserGroups {
		groups = append(groups, g.Groups...)
	}
	for _, d := range cfg.Digests {
		if !DigestReadsHere(cfg, d) {
			continue // read in its remote cluster (ClusterObjects)
		}
		users = append(users, d.User)
		groups = append(groups, d.Groups...)
	}
	wide := cfg.Identity.Email.Enabled
	// The in-cluster cluster's own identity mapping is read in this
	// cluster too (remote clusters: ClusterObjects).
	for _, cl := range cfg.Clusters {
		if !cl.InCluster || cl.Identity == nil {
			continue
		}
		for _, u := range cl.Identity.Users {
			users = append(users, u.User)
			groups = append(groups, u.Groups...)
			slackIDs = append(slackIDs, u.SlackUserID)
		}
		groups = append(groups, cl.Identity.Email.Groups...)
		for _, g := range cl.Identity.UserGroups {
			groups = append(groups, g.Groups...)
		}
		wide = wide || cl.Identity.Email.Enabled
	}

	var rules []rbacv1.PolicyRule
	switch {
	case wide:
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}})
	case len(sortedSet(users)) > 0:
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}, ResourceNames: sortedSet(users)})
	}
	if g := sortedSet(groups); len(g) > 0 {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"groups"}, Verbs: []string{"impersonate"}, ResourceNames: g})
	}
	extra := rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"userextras/" + ExtraSlackUserID}, Verbs: []string{"impersonate"}}
	switch {
	case wide:
		rules = append(rules, extra)
	case len(slackIDs) > 0:
		extra.ResourceNames = sortedSet(slackIDs)
		rules = append(rules, extra)
	}
	rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"localqueues"}, Verbs: []string{"list"}})
	if cfg.Kube.ClusterScopedReads == config.ClusterScopedBot {
		// Topologies: those the caller's flavors name (topologyName), read
		// with the flavors. WorkloadPriorityClasses: a job without a
		// Workload names one, and whether it exists tells why Kueue made
		// none (get for one question, list for lists and digests).
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"kueue.x-k8s.io"},
			Resources: []string{"clusterqueues", "cohorts", "resourceflavors", "topologies", "workloadpriorityclasses"}, Verbs: []string{"get", "list"}})
	}
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: BotName, Labels: clone(labels)},
		Rules:      rules,
	}
}

// readerFixedReads are what the fetcher reads as the caller besides each
// kind of the registry (get one by name, list a namespace's): the
// LocalQueue a job names (get) and a namespace's LocalQueues (list), the
// Events of the job, its Workload and its Pods (list only, by involved
// object), and the job's place in its LocalQueue from Kueue's visibility
// API (get of the pendingworkloads subresource), the namespace's
// PersistentVolumeClaims, ResourceQuotas and LimitRanges (list only: the
// claims of unscheduled pods, the quotas and limits that refuse pods or
// default a request; diagnose/fetch objects.go), and a watch on the
// namespace's Workloads, which notifications (package bot/notify) keep
// open as one subscriber of the namespace, and a watch on its Pods, which
// they keep open while a subscribed admitted job's Pods do not all run
// (for "Running"). Nothing else: not
// events.k8s.io (the core Events are read), no controller of Pods the
// registry does not hold.
var readerFixedReads = []rbacv1.PolicyRule{
	{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"localqueues"}, Verbs: kinds.ReadVerbs},
	{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"list"}},
	{APIGroups: []string{""}, Resources: []string{"limitranges", "persistentvolumeclaims", "resourcequotas"}, Verbs: []string{"list"}},
	{APIGroups: []string{"visibility.kueue.x-k8s.io"}, Resources: []string{"localqueues/pendingworkloads"}, Verbs: []string{"get"}},
	{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: []string{"watch"}},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"watch"}},
}

// ReaderClusterRole is kueuebot-reader: what a person needs, in a
// namespace, for the bot to explain their jobs there, and nothing more.
// Platform teams bind it per namespace with a RoleBinding. It is generated
// from the kind registry (each kind's kinds.Kind.ReadRule) and the
// fetcher's fixed reads (readerFixedReads); rules of one API group with the
// same verbs are merged. Read-only: get and list, and watch on Workloads.
func ReaderClusterRole() *rbacv1.ClusterRole {
	var rules []rbacv1.PolicyRule
	add := func(r rbacv1.PolicyRule) {
		for i := range rules {
			if slices.Equal(rules[i].APIGroups, r.APIGroups) && slices.Equal(rules[i].Verbs, r.Verbs) {
				rules[i].Resources = append(rules[i].Resources, r.Resources...)
				slices.Sort(rules[i].Resources)
				return
			}
		}
		rules = append(rules, rbacv1.PolicyRule{APIGroups: slices.Clone(r.APIGroups), Resources: slices.Clone(r.Resources), Verbs: slices.Clone(r.Verbs)})
	}
	for _, k := range kinds.All() {
		add(k.ReadRule())
	}
	for _, r := range readerFixedReads {
		add(r)
	}
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: ReaderName, Labels: clone(labels)},
		Rules:      rules,
	}
}

// BotServiceAccount is the bot's ServiceAccount in namespace ns. Its
// token is not mounted by default: the bot's pod asks for it
// (automountServiceAccountToken on the pod), no other pod gets it.
func BotServiceAccount(ns string) *corev1.ServiceAccount {
	automount := false
	return &corev1.ServiceAccount{
		TypeMeta:                     metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta:                   metav1.ObjectMeta{Name: BotName, Namespace: ns, Labels: clone(labels)},
		AutomountServiceAccountToken: &automount,
	}
}

// BotClusterRoleBinding binds BotClusterRole to the bot's ServiceAccount in
// namespace ns.
func BotClusterRoleBinding(ns string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: BotName, Labels: clone(labels)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: BotName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: BotName, Namespace: ns}},
	}
}

// RenderYAML renders objects as one multi-document YAML stream with a
// header comment, as committed under deploy/rbac.
func RenderYAML(header string, objs ...runtime.Object) ([]byte, error) {
	var b bytes.Buffer
	for _, line := range bytes.Split([]byte(header), []byte("\n")) {
		b.WriteString("# ")
		b.Write(line)
		b.WriteString("\n")
	}
	for _, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("rbac: render %T: %w", o, err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("  creationTimestamp: null\n"), nil), nil
}

func sortedSet(in []string) []string {
	out := slices.Clone(in)
	// Never grant impersonation of reserved names, whatever the config says.
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" || isSystem(s) })
	slices.Sort(out)
	return slices.Compact(out)
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// BotKueueConfigRole is, when kube.kueueConfig is on, the Role (in Kueue's
// namespace) and RoleBinding that let the bot get Kueue's manager ConfigMap
// and nothing else there; nil, nil when it is off.
func BotKueueConfigRole(cfg *config.Config, ns string) (*rbacv1.Role, *rbacv1.RoleBinding) {
	kc := cfg.Kube.KueueConfig
	if !kc.Enabled() {
		return nil, nil
	}
	name := BotName + "-kueue-config"
	role := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kc.Namespace, Labels: clone(labels)},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{kc.ConfigMap}}},
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kc.Namespace, Labels: clone(labels)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: BotName, Namespace: ns}},
	}
	return role, binding
}

// DigestReadsHere reports whether digest d reads the cluster the bot runs
// in: it names no cluster (the home cluster), or the inCluster one.
func DigestReadsHere(cfg *config.Config, d config.Digest) bool {
	if d.Cluster == "" {
		return true
	}
	cl, ok := cfg.ClusterNamed(d.Cluster)
	return ok && cl.InCluster
}
