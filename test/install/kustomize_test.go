package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/config"
)

// TestBaseUpToDate: deploy/manifests' generated files are what the chart
// renders today.
func TestBaseUpToDate(t *testing.T) {
	files, err := BaseFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(ManifestsDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("deploy/manifests/%s is out of date (run make manifests); -want +got:\n%s", name, diff)
		}
	}
}

// TestKustomizeBaseIsTheChart: kubectl apply -k deploy/manifests creates the
// objects helm install creates with the default values (plus the
// Namespace), with the same specs; only Helm's labels, the config checksum
// (the generated ConfigMap's name hash does its job) and RBAC labels
// differ.
func TestKustomizeBaseIsTheChart(t *testing.T) {
	base, err := RenderKustomize(ManifestsDir())
	if err != nil {
		t.Fatal(err)
	}
	chart := render(t, nil, BaseRelease, BaseNamespace).Objects

	var cmName string
	for _, o := range base {
		if o.GetKind() == "ConfigMap" {
			cmName = o.GetName()
		}
		if o.GetKind() != "Namespace" && o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding" && o.GetNamespace() != BaseNamespace {
			t.Errorf("%s %s in namespace %q", o.GetKind(), o.GetName(), o.GetNamespace())
		}
	}
	if !strings.HasPrefix(cmName, "kueuebot-") {
		t.Fatalf("no generated ConfigMap kueuebot-<hash> in %v", kinds(base))
	}
	wantKinds := append(kinds(chart), "Namespace/kueuebot")
	for i, k := range wantKinds {
		if k == "ConfigMap/kueuebot" {
			wantKinds[i] = "ConfigMap/" + cmName
		}
	}
	slices.Sort(wantKinds)
	if diff := cmp.Diff(wantKinds, kinds(base)); diff != "" {
		t.Fatalf("objects differ (-chart +kustomize):\n%s", diff)
	}

	// The same config.
	parse := func(objs []*unstructured.Unstructured) *config.Config {
		cm := typed[corev1.ConfigMap](t, one(t, objs, "ConfigMap", ""))
		c, err := config.Parse([]byte(cm.Data["config.yaml"]))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if diff := cmp.Diff(parse(chart), parse(base), cmp.AllowUnexported(config.Secret{})); diff != "" {
		t.Errorf("config differs (-chart +kustomize):\n%s", diff)
	}

	// The same specs, once the ConfigMap name and the checksum are set
	// aside.
	for _, c := range chart {
		if c.GetKind() == "ConfigMap" {
			continue
		}
		k := one(t, base, c.GetKind(), c.GetName())
		cs, ks := specOf(c), specOf(k)
		if c.GetKind() == "Deployment" {
			unstructured.RemoveNestedField(cs, "template", "metadata", "annotations")
			vols, _, _ := unstructured.NestedSlice(ks, "template", "spec", "volumes")
			for _, v := range vols {
				if cm, ok := v.(map[string]any)["configMap"].(map[string]any); ok && cm["name"] == cmName {
					cm["name"] = "kueuebot"
				}
			}
			_ = unstructured.SetNestedSlice(ks, vols, "template", "spec", "volumes")
		}
		if diff := cmp.Diff(cs, ks); diff != "" {
			t.Errorf("%s %s differs (-chart +kustomize):\n%s", c.GetKind(), c.GetName(), diff)
		}
	}
}

// specOf is what an object asks of the cluster: everything but metadata.
func specOf(o *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for k, v := range o.DeepCopy().Object {
		if k != "metadata" && k != "apiVersion" && k != "kind" {
			out[k] = v
		}
	}
	if s, ok := out["spec"].(map[string]any); ok && len(out) == 1 {
		return s
	}
	return out
}
