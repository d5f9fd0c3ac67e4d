package rbac

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestBotStateRole(t *testing.T) {
	r := BotStateRole("bots")
	if r.Namespace != "bots" || r.Name != BotName {
		t.Fatalf("Role %s/%s", r.Namespace, r.Name)
	}
	for _, rule := range r.Rules {
		if len(rule.Resources) != 1 || (rule.Resources[0] != "leases" && rule.Resources[0] != "configmaps") {
			t.Errorf("rule on something else than the Lease and the ConfigMaps: %+v", rule)
		}
		for _, v := range rule.Verbs {
			switch v {
			case "get", "update":
				// Narrowed to the bot's own objects.
				var want []string
				switch rule.Resources[0] {
				case "leases":
					want = []string{LeaseName}
				case "configmaps":
					want = []string{StateConfigMapName}
					if slices.Equal(rule.ResourceNames, []string{LangConfigMapName}) {
						want = []string{LangConfigMapName}
					}
				}
				if !slices.Equal(rule.ResourceNames, want) {
					t.Errorf("%s on %s not narrowed to %s: %+v", v, rule.Resources[0], want, rule)
				}
			case "create":
				// create cannot be narrowed by name; it is the only verb
				// without resourceNames.
				if len(rule.ResourceNames) != 0 {
					t.Errorf("create with resourceNames never matches: %+v", rule)
				}
			default:
				t.Errorf("verb %q in %+v", v, rule)
			}
		}
	}
	b := BotStateRoleBinding("bots")
	if b.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: BotName}) ||
		!slices.Equal(b.Subjects, []rbacv1.Subject{{Kind: "ServiceAccount", Name: BotName, Namespace: "bots"}}) {
		t.Errorf("binding %+v", b)
	}
}

func TestBotObjects(t *testing.T) {
	c := exampleConfig(t)
	if got := len(BotObjects(c, "kueuebot")); got != 5 {
		t.Errorf("with digests: %d objects, want 5 (SA, ClusterRole, binding, Role, binding)", got)
	}
	c.Digests, c.Notify.Enabled = nil, false
	objs := BotObjects(c, "kueuebot")
	if got := len(objs); got != 5 {
		t.Fatalf("without digests: %d objects, want 5 (the Role for the Lease of leader election)", got)
	}
	for _, rule := range objs[3].(*rbacv1.Role).Rules {
		lang := slices.Equal(rule.Resources, []string{"configmaps"}) &&
			(slices.Equal(rule.ResourceNames, []string{LangConfigMapName}) || slices.Equal(rule.Verbs, []string{"create"}))
		if !slices.Equal(rule.Resources, []string{"leases"}) && !lang {
			t.Errorf("without digests the Role grants more than the Lease and the language ConfigMap: %+v", rule)
		}
	}
	c.Notify.Enabled = true
	var notifyRules []rbacv1.PolicyRule
	for _, rule := range BotObjects(c, "kueuebot")[3].(*rbacv1.Role).Rules {
		if slices.Equal(rule.Resources, []string{"configmaps"}) {
			notifyRules = append(notifyRules, rule)
		}
	}
	wantNotify := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: []string{LangConfigMapName}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}, ResourceNames: NotifyConfigMapNames()},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
	}
	if !slices.EqualFunc(notifyRules, wantNotify, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.ResourceNames, b.ResourceNames)
	}) {
		t.Errorf("with notify.enabled (no digests) the ConfigMap rules are %+v, want %+v", notifyRules, wantNotify)
	}
	c.Notify.Enabled = false
	c.Kube.KueueConfig.ConfigMap = "kueue-manager-config"
	objs = BotObjects(c, "kueuebot")
	if got := len(objs); got != 7 {
		t.Fatalf("with kube.kueueConfig: %d objects, want 7 (the Role reading Kueue's ConfigMap, and its binding)", got)
	}
	if r := objs[5].(*rbacv1.Role); r.Namespace != c.Kube.KueueConfig.Namespace {
		t.Errorf("kube.kueueConfig Role in %q, want Kueue's namespace %q", r.Namespace, c.Kube.KueueConfig.Namespace)
	}
}
