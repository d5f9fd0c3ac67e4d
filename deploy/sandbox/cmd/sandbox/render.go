package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// This file renders what `kustomize build config/default` would install, reduced to what a
// loopback sandbox needs, straight from the Kueue module's config/ directory (nothing is copied
// into this repo): the CRDs (conversion webhook pointed at a loopback URL), the RBAC with the
// "kueue-" name prefix and the kueue-system namespace, and the webhook configurations rewritten
// from service: to url:.

const kueueNamespace = "kueue-system"

// decodeYAML splits a multi-document YAML stream into objects (empty documents are skipped).
func decodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

func decodeFile(path string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := decodeYAML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

// kustomizeResources lists the resources: entries of a kustomization.yaml.
func kustomizeResources(dir string) ([]string, error) {
	k, err := readKustomization(dir)
	return k.Resources, err
}

type kustomization struct {
	Resources []string `json:"resources"`
	Patches   []struct {
		Path string `json:"path"`
	} `json:"patches"`
}

func readKustomization(dir string) (kustomization, error) {
	var k kustomization
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return k, err
	}
	err = yaml.Unmarshal(b, &k)
	return k, err
}

// renderCRDs returns Kueue's CRDs; those that kustomize patches with a conversion webhook get it
// with a loopback URL.
func renderCRDs(kueueDir, webhookURL string, caPEM []byte) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(kueueDir, "config", "components", "crd")
	k, err := readKustomization(dir)
	if err != nil {
		return nil, err
	}
	res := k.Resources
	// Only the conversion patches config/components/crd/kustomization.yaml lists (the directory holds
	// more, e.g. for ResourceFlavor, which Kueue does not convert).
	converted := map[string]bool{}
	for _, p := range k.Patches {
		if !strings.Contains(p.Path, "webhook_in_") {
			continue
		}
		objs, err := decodeFile(filepath.Join(dir, p.Path))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			converted[o.GetName()] = true
		}
	}
	var out []*unstructured.Unstructured
	for _, r := range res {
		objs, err := decodeFile(filepath.Join(dir, r))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			stripDescriptions(o.Object)
			if converted[o.GetName()] {
				_ = unstructured.SetNestedField(o.Object, map[string]any{
					"strategy": "Webhook",
					"webhook": map[string]any{
						"clientConfig": map[string]any{
							"url":      webhookURL + "/convert",
							"caBundle": base64.StdEncoding.EncodeToString(caPEM),
						},
						"conversionReviewVersions": []any{"v1"},
					},
				}, "spec", "conversion")
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// renderRBAC returns the ServiceAccount, Roles, ClusterRoles and bindings of
// config/components/rbac as config/default would name them.
func renderRBAC(kueueDir string) ([]*unstructured.Unstructured, error) {
	dir := filepath.Join(kueueDir, "config", "components", "rbac")
	res, err := kustomizeResources(dir)
	if err != nil {
		return nil, err
	}
	return renderRBACFiles(dir, res, "kueue-", kueueNamespace, "kueue")
}

// renderRBACFiles renders RBAC manifests as a kustomization with namePrefix prefix and namespace
// ns would: names (and role references, ServiceAccount subjects) prefixed, namespaced objects
// moved to ns, and the app.kubernetes.io/name label set to app.
func renderRBACFiles(dir string, files []string, prefix, ns, app string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, r := range files {
		objs, err := decodeFile(filepath.Join(dir, r))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			o.SetName(prefix + o.GetName())
			if o.GetNamespace() != "" {
				o.SetNamespace(ns)
			}
			labels := o.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels["app.kubernetes.io/name"] = app
			o.SetLabels(labels)
			if strings.HasSuffix(o.GetKind(), "Binding") {
				if name, ok, _ := unstructured.NestedString(o.Object, "roleRef", "name"); ok {
					_ = unstructured.SetNestedField(o.Object, prefix+name, "roleRef", "name")
				}
				subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
				for _, s := range subjects {
					sm := s.(map[string]any)
					if sm["kind"] == "ServiceAccount" {
						sm["name"] = prefix + fmt.Sprint(sm["name"])
						sm["namespace"] = ns
					}
				}
				_ = unstructured.SetNestedSlice(o.Object, subjects, "subjects")
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// renderWebhooks returns the Mutating/ValidatingWebhookConfigurations pointed at url.
func renderWebhooks(kueueDir, url string, caPEM []byte, worker bool) ([]*unstructured.Unstructured, error) {
	objs, err := decodeFile(filepath.Join(kueueDir, "config", "components", "webhook", "manifests.yaml"))
	if err != nil {
		return nil, err
	}
	// The namespaceSelector patches of config/components/webhook/kustomization.yaml (Pods,
	// Deployments, StatefulSets: not in kube-system or Kueue's namespace).
	excludeSystem := map[string]any{"matchExpressions": []any{map[string]any{
		"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", kueueNamespace},
	}}}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		o.SetName("kueue-" + o.GetName())
		hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		var kept []any
		for _, h := range hooks {
			hm := h.(map[string]any)
			keep := true
			rules, _, _ := unstructured.NestedSlice(hm, "rules")
			for _, r := range rules {
				groups, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "apiGroups")
				resources, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
				for _, g := range groups {
					for _, res := range resources {
						if !servedWebhook(worker, g, res) {
							keep = false
						}
					}
				}
			}
			if !keep {
				continue
			}
			path, _, _ := unstructured.NestedString(hm, "clientConfig", "service", "path")
			hm["clientConfig"] = map[string]any{
				"url":      url + path,
				"caBundle": base64.StdEncoding.EncodeToString(caPEM),
			}
			switch hm["name"] {
			case "mpod.kb.io", "vpod.kb.io", "mdeployment.kb.io", "vdeployment.kb.io", "mstatefulset.kb.io", "vstatefulset.kb.io":
				hm["namespaceSelector"] = excludeSystem
			}
			kept = append(kept, hm)
		}
		_ = unstructured.SetNestedSlice(o.Object, kept, "webhooks")
		out = append(out, o)
	}
	return out, nil
}
