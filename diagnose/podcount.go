package diagnose

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// podCountOrigin says how a pod set's count comes from the job's manifest
// when the user may not recognise it, e.g. "replicas 3 × numOfHosts 2 of
// worker group gpu" for a Ray worker group on multi-host slices, or
// "spec.mpiReplicaSpecs.Worker.replicas" for a Kubeflow job; "" when the
// manifest does not say more than the count itself.
func (a *analysis) podCountOrigin(podSet string) string {
	u := a.job.u
	if u == nil {
		return ""
	}
	switch a.r.Target.Kind {
	case "RayCluster":
		return rayGroupOrigin(u, podSet, "spec", "workerGroupSpecs")
	case "RayJob":
		return rayGroupOrigin(u, podSet, "spec", "rayClusterSpec", "workerGroupSpecs")
	}
	spec, _, _ := unstructured.NestedMap(u.Object, "spec")
	for field, v := range spec {
		if !strings.HasSuffix(field, "ReplicaSpecs") {
			continue
		}
		replicas, _ := v.(map[string]any)
		for typ := range replicas {
			if strings.EqualFold(typ, podSet) {
				return fmt.Sprintf("spec.%s.%s.replicas", field, typ)
			}
		}
	}
	return ""
}

// rayGroupOrigin explains a Ray worker group's pod count when numOfHosts
// multiplies it: Kueue counts replicas × numOfHosts pods.
func rayGroupOrigin(u *unstructured.Unstructured, podSet string, path ...string) string {
	groups, _, _ := unstructured.NestedSlice(u.Object, path...)
	for _, g := range groups {
		m, _ := g.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "groupName")
		if name != podSet {
			continue
		}
		hosts, ok, _ := unstructured.NestedInt64(m, "numOfHosts")
		if !ok || hosts <= 1 {
			return ""
		}
		replicas, _, _ := unstructured.NestedInt64(m, "replicas")
		return fmt.Sprintf("replicas %d × numOfHosts %d of worker group %s", replicas, hosts, name)
	}
	return ""
}
