package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// valueSet is one set of values the chart is proven with.
type valueSet struct {
	name   string
	values map[string]any
}

// valueSets are the chart's default values and the value files in its ci/
// folder (HTTP mode with a ServiceMonitor; several replicas with digests).
func valueSets(t *testing.T) []valueSet {
	t.Helper()
	sets := []valueSet{{name: "default"}}
	files, err := filepath.Glob(filepath.Join(ChartDir(), "ci", "*-values.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("want the ci value sets, got %v (%v)", files, err)
	}
	for _, f := range files {
		sets = append(sets, valueSet{name: strings.TrimSuffix(filepath.Base(f), "-values.yaml"), values: readValues(t, f)})
	}
	return sets
}

// readValues parses a values file as Helm does.
func readValues(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := loader.LoadValues(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// parseValues parses values YAML text as Helm does.
func parseValues(t *testing.T, y string) map[string]any {
	t.Helper()
	v, err := loader.LoadValues(strings.NewReader(y))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func render(t *testing.T, values map[string]any, release, ns string) *Rendered {
	t.Helper()
	r, err := RenderChart(ChartDir(), values, release, ns)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// find returns the objects of a kind.
func find(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the single object of a kind (and name, if given).
func one(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var got []*unstructured.Unstructured
	for _, o := range find(objs, kind) {
		if name == "" || o.GetName() == name {
			got = append(got, o)
		}
	}
	if len(got) != 1 {
		t.Fatalf("want one %s %s, got %d", kind, name, len(got))
	}
	return got[0]
}

// typed converts strictly: an unknown field (a typo in a template) fails.
func typed[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

func deployment(t *testing.T, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	return typed[appsv1.Deployment](t, one(t, objs, "Deployment", ""))
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}
