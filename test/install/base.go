package install

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/rbac"
)

// The release the kustomize base is rendered as: names and namespace equal
// rbac's defaults.
const (
	BaseRelease   = "kueuebot"
	BaseNamespace = rbac.DefaultNamespace
)

// helmOnlyLabels are dropped from the kustomize base: Helm does not manage
// it.
var helmOnlyLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by"}

// BaseFiles renders the generated files of deploy/manifests from the
// chart's default values: config.yaml (the chart's config, which the
// kustomization's configMapGenerator turns into the ConfigMap), rbac.yaml
// (what `kueuebot rbac --config config.yaml --reader` prints for it) and
// kueuebot.yaml (the chart's other objects, without Helm's labels and the
// config checksum: the generator's name hash rolls the pods instead).
func BaseFiles() (map[string][]byte, error) {
	r, err := RenderChart(ChartDir(), nil, BaseRelease, BaseNamespace)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	var workload bytes.Buffer
	workload.WriteString(`# kueuebot's workload objects, rendered from the Helm chart's default values
# (deploy/helm/kueuebot) without Helm's labels. Do not edit: change the chart
# and regenerate with make manifests.
`)
	for _, o := range r.Objects {
		switch o.GetKind() {
		case "ConfigMap":
			data, _, _ := unstructured.NestedString(o.Object, "data", "config.yaml")
			files["config.yaml"] = []byte("# kueuebot's configuration (every key: docs/config.md). After changing identity\n" +
				"# or digest, regenerate the bot's rights:\n" +
				"#   kueuebot rbac --config config.yaml --reader > rbac.yaml\n" + data)
			continue
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			continue // rbac.yaml
		case "Deployment":
			unstructured.RemoveNestedField(o.Object, "spec", "template", "metadata", "annotations", "checksum/config")
			if a, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "metadata", "annotations"); len(a) == 0 {
				unstructured.RemoveNestedField(o.Object, "spec", "template", "metadata", "annotations")
			}
		}
		labels := o.GetLabels()
		for _, l := range helmOnlyLabels {
			delete(labels, l)
		}
		o.SetLabels(labels)
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		workload.WriteString("---\n")
		workload.Write(y)
	}
	files["kueuebot.yaml"] = workload.Bytes()
	cfg, err := config.Parse(files["config.yaml"])
	if err != nil {
		return nil, fmt.Errorf("the chart's default config does not load: %w", err)
	}
	rb, err := BaseRBAC(cfg)
	if err != nil {
		return nil, err
	}
	files["rbac.yaml"] = rb
	return files, nil
}

// BaseRBAC is rbac.yaml of the kustomize base for cfg: exactly what
// `kueuebot rbac --config config.yaml --reader` prints, with a header that
// says how to regenerate it.
func BaseRBAC(cfg *config.Config) ([]byte, error) {
	objs := append(rbac.BotObjects(cfg, BaseNamespace), runtime.Object(rbac.ReaderClusterRole()))
	return rbac.RenderYAML("The bot's rights for config.yaml (rbac.BotObjects) and the kueuebot-reader ClusterRole.\n"+
		"Regenerate after changing config.yaml: kueuebot rbac --config config.yaml --reader > rbac.yaml", objs...)
}
