package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// integration is a job kind Kueue integrates with. The sandbox installs its CRDs from the Go
// module at the version Kueue v0.17.0's go.mod pins (the module graph of build/kueue, where
// the CRD YAML ships next to the API types Kueue compiles in) and enables it in Kueue's
// configuration. Nothing of these projects is copied into this repo.
type integration struct {
	// framework is the name in Kueue's integrations.frameworks.
	framework string
	// module is the Go module that ships the CRDs; crds are paths inside it.
	module string
	crds   []string
	// group and resources are what Kueue's webhooks for the kind match (the sandbox keeps those
	// webhooks and drops the ones of kinds it does not enable).
	group     string
	resources []string
}

// integrations: every job kind the sandbox runs, besides batch/job and pod (which the statefulset
// and deployment integrations need: Kueue enables it implicitly with them). The training-operator
// module also ships an MPIJob v1 CRD; Kueue integrates MPIJob v2beta1 of the mpi-operator,
// whose CRD is installed instead.
var integrations = []integration{
	{"jobset.x-k8s.io/jobset", "sigs.k8s.io/jobset", []string{"config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"}, "jobset.x-k8s.io", []string{"jobsets"}},
	{"ray.io/rayjob", "github.com/ray-project/kuberay/ray-operator", []string{"config/crd/bases/ray.io_rayjobs.yaml"}, "ray.io", []string{"rayjobs"}},
	{"ray.io/raycluster", "github.com/ray-project/kuberay/ray-operator", []string{"config/crd/bases/ray.io_rayclusters.yaml"}, "ray.io", []string{"rayclusters"}},
	{"kubeflow.org/pytorchjob", "github.com/kubeflow/training-operator", []string{"manifests/base/crds/kubeflow.org_pytorchjobs.yaml"}, "kubeflow.org", []string{"pytorchjobs"}},
	{"kubeflow.org/tfjob", "github.com/kubeflow/training-operator", []string{"manifests/base/crds/kubeflow.org_tfjobs.yaml"}, "kubeflow.org", []string{"tfjobs"}},
	{"kubeflow.org/xgboostjob", "github.com/kubeflow/training-operator", []string{"manifests/base/crds/kubeflow.org_xgboostjobs.yaml"}, "kubeflow.org", []string{"xgboostjobs"}},
	{"kubeflow.org/paddlejob", "github.com/kubeflow/training-operator", []string{"manifests/base/crds/kubeflow.org_paddlejobs.yaml"}, "kubeflow.org", []string{"paddlejobs"}},
	{"kubeflow.org/jaxjob", "github.com/kubeflow/training-operator", []string{"manifests/base/crds/kubeflow.org_jaxjobs.yaml"}, "kubeflow.org", []string{"jaxjobs"}},
	{"kubeflow.org/mpijob", "github.com/kubeflow/mpi-operator", []string{"manifests/base/kubeflow.org_mpijobs.yaml"}, "kubeflow.org", []string{"mpijobs"}},
	{"trainer.kubeflow.org/trainjob", "github.com/kubeflow/trainer/v2", []string{
		"manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml",
		"manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml",
		"manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml",
	}, "trainer.kubeflow.org", []string{"trainjobs"}},
	{"leaderworkerset.x-k8s.io/leaderworkerset", "sigs.k8s.io/lws", []string{"config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml"}, "leaderworkerset.x-k8s.io", []string{"leaderworkersets"}},
	{"workload.codeflare.dev/appwrapper", "github.com/project-codeflare/appwrapper", []string{"config/crd/bases/workload.codeflare.dev_appwrappers.yaml"}, "workload.codeflare.dev", []string{"appwrappers"}},
	// Built-in kinds: no CRD, no module. Kueue's statefulset and deployment integrations
	// (pkg/controller/jobs/{statefulset,deployment}) mark the pod template so that the pod
	// integration gates the Pods; the kube-controller-manager's StatefulSet and Deployment
	// controllers create them.
	{"statefulset", "", nil, "apps", []string{"statefulsets"}},
	{"deployment", "", nil, "apps", []string{"deployments"}},
}

// enabledIntegrations are the integrations a sandbox enables: all of them, or none on a
// MultiKueue worker, which runs batch Jobs (and the pod integration, whose webhook gates every
// Pod) only, so that it starts in seconds (no CRDs of job kinds to establish).
func enabledIntegrations(worker bool) []integration {
	if worker {
		return nil
	}
	return integrations
}

// frameworks is Kueue's integrations.frameworks list for a sandbox (worker: see enabledIntegrations).
func frameworks(worker bool) []string {
	out := []string{"batch/job", "pod"}
	for _, in := range enabledIntegrations(worker) {
		out = append(out, in.framework)
	}
	return out
}

// servedWebhook reports whether the sandbox keeps a Kueue webhook that matches (group, resource):
// Kueue's own kinds, batch Jobs, Pods and the enabled integrations. Webhooks of integrations that
// are not enabled (RayServices, SparkApplications, ...) are dropped:
// Kueue does not serve them, and with failurePolicy Fail they would block every such object.
func servedWebhook(worker bool, group, resource string) bool {
	switch group {
	case "", "batch", "kueue.x-k8s.io":
		return true
	}
	for _, in := range enabledIntegrations(worker) {
		if in.group != group {
			continue
		}
		for _, r := range in.resources {
			if r == resource {
				return true
			}
		}
	}
	return false
}

// moduleDirs resolves the module directories of the integrations (and of Kueue) in the module
// graph of buildDir (deploy/sandbox/build/kueue), downloading them when missing: `go mod
// download -json` prints each module's directory in the module cache.
func moduleDirs(goBin, buildDir string) (map[string]string, error) {
	seen := map[string]bool{}
	args := []string{"mod", "download", "-json", "sigs.k8s.io/kueue"}
	for _, in := range integrations {
		if in.module != "" && !seen[in.module] {
			seen[in.module] = true
			args = append(args, in.module)
		}
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = buildDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download in %s: %w\n%s", buildDir, err, stderr.String())
	}
	dirs := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Dir, Error string }
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if m.Error != "" || m.Dir == "" {
			return nil, fmt.Errorf("module %s: %s", m.Path, m.Error)
		}
		dirs[m.Path] = m.Dir
	}
	return dirs, nil
}

// renderIntegrationCRDs reads the integrations' CRDs from their modules.
func renderIntegrationCRDs(dirs map[string]string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, in := range integrations {
		if in.module == "" {
			continue // a built-in kind
		}
		dir, ok := dirs[in.module]
		if !ok {
			return nil, fmt.Errorf("module %s of %s not resolved", in.module, in.framework)
		}
		for _, f := range in.crds {
			objs, err := decodeFile(filepath.Join(dir, f))
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				if o.GetKind() != "CustomResourceDefinition" {
					return nil, fmt.Errorf("%s in %s is a %s, not a CRD", f, in.module, o.GetKind())
				}
				stripDescriptions(o.Object)
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// stripDescriptions removes the documentation strings of a CRD's schemas (every "description"
// key whose value is a string; a property named description has a map value and stays). They
// are most of the bytes of the pod-template-heavy CRDs (PyTorchJob: 284 kB -> 74 kB as JSON), and
// the API server's cost of applying a CRD and of every status update it makes grows with its
// size; validation, defaulting and pruning do not read them.
func stripDescriptions(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if _, isString := x.(string); isString && k == "description" {
				delete(t, k)
				continue
			}
			stripDescriptions(x)
		}
	case []any:
		for _, x := range t {
			stripDescriptions(x)
		}
	}
}

// fileExists is a small helper for optional binaries.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
