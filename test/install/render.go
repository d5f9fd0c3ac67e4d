package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// KubeVersion is the Kubernetes version charts are rendered for: the
// sandbox's.
const KubeVersion = "v1.35.4"

// RepoRoot is the repository's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ChartDir is deploy/helm/kueuebot.
func ChartDir() string { return filepath.Join(RepoRoot(), "deploy", "helm", "kueuebot") }

// ManifestsDir is deploy/manifests, the kustomize base.
func ManifestsDir() string { return filepath.Join(RepoRoot(), "deploy", "manifests") }

// Rendered is one rendering of the chart.
type Rendered struct {
	// Objects are the rendered objects, in template file order.
	Objects []*unstructured.Unstructured
	// Notes is the rendered NOTES.txt.
	Notes string
	// Files are the rendered templates by path ("kueuebot/templates/...").
	Files map[string]string
}

// LoadChart loads the chart from dir.
func LoadChart(dir string) (*chart.Chart, error) { return loader.Load(dir) }

// RenderChart renders the chart in dir as `helm template` does, for a
// release name and namespace, with values merged over the chart's own and
// checked against values.schema.json.
func RenderChart(dir string, values map[string]any, release, namespace string) (*Rendered, error) {
	ch, err := LoadChart(dir)
	if err != nil {
		return nil, err
	}
	kv, err := common.ParseKubeVersion(KubeVersion)
	if err != nil {
		return nil, err
	}
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, kv.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion %s, not %s", ch.Metadata.KubeVersion, kv)
	}
	top, err := util.ToRenderValuesWithSchemaValidation(ch, values, common.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true, Revision: 1}, caps, false)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, err
	}
	out := &Rendered{Files: files}
	for _, name := range slices.Sorted(mapKeys(files)) {
		base := path.Base(name)
		switch {
		case base == "NOTES.txt":
			out.Notes = files[name]
			continue
		case strings.HasPrefix(base, "_"):
			continue
		}
		objs, err := DecodeYAML([]byte(files[name]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out.Objects = append(out.Objects, objs...)
	}
	return out, nil
}

// RenderKustomize builds the kustomization in dir as `kubectl apply -k`
// does.
func RenderKustomize(dir string) ([]*unstructured.Unstructured, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	y, err := res.AsYaml()
	if err != nil {
		return nil, err
	}
	return DecodeYAML(y)
}

// DecodeYAML splits a multi-document YAML stream into objects, skipping
// empty documents.
func DecodeYAML(b []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
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

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
