package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The JobSet controller (sigs.k8s.io/jobset, the version Kueue v0.17.0 pins), so that an admitted
// JobSet really gets its child Jobs, whose Pods kube-scheduler binds. It runs like Kueue: as its
// ServiceAccount jobset-system/jobset-controller-manager with the ClusterRole its module ships,
// its webhooks (config/components/webhook with the kustomization's two patches) pointed at a
// loopback URL with a sandbox-CA certificate, internal cert management and metrics off.

const jobsetNamespace = "jobset-system"

const jobsetModule = "sigs.k8s.io/jobset"

// renderJobSet returns the JobSet controller's namespace, ServiceAccount, ClusterRole and binding.
func renderJobSet(jobsetDir string) ([]*unstructured.Unstructured, error) {
	ns, err := decodeYAML([]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + jobsetNamespace + "\n"))
	if err != nil {
		return nil, err
	}
	rbac, err := renderRBACFiles(filepath.Join(jobsetDir, "config", "components", "rbac"),
		[]string{"service_account.yaml", "role.yaml", "role_binding.yaml"}, "jobset-", jobsetNamespace, "jobset")
	if err != nil {
		return nil, err
	}
	return append(ns, rbac...), nil
}

// renderJobSetWebhooks returns JobSet's webhook configurations pointed at url: manifests.yaml with
// the patches of config/components/webhook/kustomization.yaml (they replace the second webhook of
// each configuration, the Pod one, to match only Pods of JobSets).
func renderJobSetWebhooks(jobsetDir, url string, caPEM []byte) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(jobsetDir, "config", "components", "webhook")
	objs, err := decodeFile(filepath.Join(dir, "manifests.yaml"))
	if err != nil {
		return nil, err
	}
	patches := map[string]string{
		"MutatingWebhookConfiguration":   "patches/mutating-patch.yaml",
		"ValidatingWebhookConfiguration": "patches/validating-patch.yaml",
	}
	for _, o := range objs {
		o.SetName("jobset-" + o.GetName())
		hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		if p, ok := patches[o.GetKind()]; ok {
			hook, err := replacePatch(filepath.Join(dir, p), "/webhooks/1")
			if err != nil {
				return nil, err
			}
			if len(hooks) < 2 {
				return nil, fmt.Errorf("%s: expected 2 webhooks, got %d", o.GetName(), len(hooks))
			}
			hooks[1] = hook
		}
		for _, h := range hooks {
			hm := h.(map[string]any)
			path, _, _ := unstructured.NestedString(hm, "clientConfig", "service", "path")
			hm["clientConfig"] = map[string]any{"url": url + path, "caBundle": base64.StdEncoding.EncodeToString(caPEM)}
		}
		_ = unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
	}
	return objs, nil
}

// replacePatch reads a JSON 6902 patch file and returns the value of its one replace at path.
func replacePatch(file, path string) (map[string]any, error) {
	objs, err := readYAMLList(file)
	if err != nil {
		return nil, err
	}
	for _, op := range objs {
		if op["op"] == "replace" && op["path"] == path {
			if v, ok := op["value"].(map[string]any); ok {
				return v, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: no replace of %s", file, path)
}

func readYAMLList(file string) ([]map[string]any, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var ops []map[string]any
	if err := yaml.Unmarshal(b, &ops); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ops, nil
}

// jobsetConfig is the JobSet controller's Configuration.
func jobsetConfig(healthPort, webhookPort int, certDir string) ([]byte, error) {
	return yaml.Marshal(map[string]any{
		"apiVersion":             "config.jobset.x-k8s.io/v1alpha1",
		"kind":                   "Configuration",
		"health":                 map[string]any{"healthProbeBindAddress": fmt.Sprintf("127.0.0.1:%d", healthPort)},
		"metrics":                map[string]any{"bindAddress": "0"},
		"webhook":                map[string]any{"host": "127.0.0.1", "port": webhookPort, "certDir": certDir},
		"leaderElection":         map[string]any{"leaderElect": false},
		"internalCertManagement": map[string]any{"enable": false},
	})
}
