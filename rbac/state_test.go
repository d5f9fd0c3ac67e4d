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
			t.Errorf("rule on something else than the Lease and the ConfigMap: %+v", rule)
		}
		for _, v := range rule.Verbs {
			switch v {
			case "get", "update":
				// Narrowed to the bot's own objects.
				want := map[string]string{"leases": LeaseName, "configmaps": StateConfigMapName}[rule.Resources[0]]
				if !slices.Equal(rule.ResourceNames, []string{want}) {
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
	c.Digests = nil
	if got := len(BotObjects(c, "kueuebot")); got != 3 {
		t.Errorf("without digests: %d objects, want 3 (no Role: the bot writes nothing)", got)
	}
}
