package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/config"
)

// TestDeployManifests: what deploy/ ships as plain YAML (the kustomize
// base's objects in deploy/manifests and deploy/rbac) is valid for a real
// API server (server-side dry run, so nothing is created), and the base's
// config.yaml parses with the same strict loader kueuebot serve uses. The
// Helm chart and the kustomize build are proven in test/install.
func TestDeployManifests(t *testing.T) {
	sb := sandbox(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	var objs []*unstructured.Unstructured
	for _, f := range []string{"deploy/manifests/namespace.yaml", "deploy/manifests/rbac.yaml", "deploy/manifests/kueuebot.yaml", "deploy/rbac/bot.yaml", "deploy/rbac/reader.yaml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot(), f))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var u unstructured.Unstructured
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			objs = append(objs, &u)
		}
	}
	for _, u := range objs {
		m, err := mapper.RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
		if err != nil {
			t.Fatalf("%s: %v", u.GetKind(), err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = dyn.Resource(m.Resource).Namespace(u.GetNamespace())
		}
		// The namespace itself is only dry-run, so namespaced objects in it
		// are validated against "default" instead.
		if u.GetNamespace() == "kueuebot" {
			u.SetNamespace("default")
			ri = dyn.Resource(m.Resource).Namespace("default")
		}
		// Server-side apply, dry run: validated whether or not the object
		// exists (other tests may have created the same ClusterRoles).
		body, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		force := true
		if _, err := ri.Patch(t.Context(), u.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
			DryRun: []string{metav1.DryRunAll}, FieldManager: "kueuebot-e2e", Force: &force, FieldValidation: "Strict",
		}); err != nil {
			t.Errorf("%s %s is not valid: %v", u.GetKind(), u.GetName(), err)
		}
	}
	data, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "manifests", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Parse(data); err != nil {
		t.Errorf("the shipped config does not load: %v", err)
	}
}
