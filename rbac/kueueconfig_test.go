package rbac

import (
	"testing"

	"github.com/kueuebot/kueuebot/config"
)

func TestBotKueueConfigRole(t *testing.T) {
	cfg := config.Default()
	if r, b := BotKueueConfigRole(cfg, DefaultNamespace); r != nil || b != nil {
		t.Fatalf("kube.kueueConfig is off by default, yet a Role %v", r)
	}
	cfg.Kube.KueueConfig.ConfigMap = "kueue-manager-config"
	r, b := BotKueueConfigRole(cfg, DefaultNamespace)
	if r == nil || b == nil || r.Namespace != "kueue-system" || b.Namespace != "kueue-system" {
		t.Fatalf("Role %v, binding %v; want both in kueue-system", r, b)
	}
	rule := r.Rules[0]
	if len(r.Rules) != 1 || len(rule.Verbs) != 1 || rule.Verbs[0] != "get" || len(rule.ResourceNames) != 1 || rule.ResourceNames[0] != "kueue-manager-config" {
		t.Errorf("rules %+v, want only get on ConfigMap kueue-manager-config", r.Rules)
	}
	if s := b.Subjects[0]; s.Name != BotName || s.Namespace != DefaultNamespace || b.RoleRef.Name != r.Name {
		t.Errorf("binding %+v does not bind the Role to the bot's ServiceAccount", b)
	}
}
