package config

import (
	"strings"
	"testing"
)

func TestValidateKueueConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		kc   KueueConfig
		want string // "" means valid
	}{
		{name: "off by default", kc: Default().Kube.KueueConfig},
		{name: "on", kc: KueueConfig{Namespace: "kueue-system", ConfigMap: "kueue-manager-config", Key: "controller_manager_config.yaml"}},
		{name: "bad namespace", kc: KueueConfig{Namespace: "Kueue System", ConfigMap: "kueue-manager-config", Key: "k"}, want: "kube.kueueConfig.namespace"},
		{name: "bad name", kc: KueueConfig{Namespace: "kueue-system", ConfigMap: "Kueue_Config", Key: "k"}, want: "kube.kueueConfig.configMap"},
		{name: "no key", kc: KueueConfig{Namespace: "kueue-system", ConfigMap: "kueue-manager-config"}, want: "kube.kueueConfig.key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Kube.KueueConfig = tc.kc
			var errs errList
			c.validateKube(&errs)
			err := errs.err()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}
