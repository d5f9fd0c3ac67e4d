package diagnose

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/i18n"
)

// podCountOrigin says how a pod set's count comes from the job's manifest
// when the user may not recognise it, e.g. "replicas 3 × numOfHosts 2 of
// worker group gpu" for a Ray worker group on multi-host slices, or
// "spec.mpiReplicaSpecs.Worker.replicas" for a Kubeflow job; "" when the
// manifest does not say more than the count itself.
func (a *analysis) podCountOrigin(podSet string) i18n.Message {
	u := a.job.u
	if u == nil {
		return i18n.Message{}
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
				return msg("diagnose.quotedPlain", i18n.Verbatim("spec."+field+"."+typ+".replicas"))
			}
		}
	}
	return i18n.Message{}
}

// rayGroupOrigin explains a Ray worker group's pod count when numOfHosts
// multiplies it: Kueue counts replicas × numOfHosts pods.
func rayGroupOrigin(u *unstructured.Unstructured, podSet string, path ...string) i18n.Message {
	groups, _, _ := unstructured.NestedSlice(u.Object, path...)
	for _, g := range groups {
		m, _ := g.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "groupName")
		if name != podSet {
			continue
		}
		hosts, ok, _ := unstructured.NestedInt64(m, "numOfHosts")
		if !ok || hosts <= 1 {
			return i18n.Message{}
		}
		replicas, _, _ := unstructured.NestedInt64(m, "replicas")
		return msg("diagnose.origin.ray", i18n.Num(replicas), i18n.Num(hosts), i18n.Name(name))
	}
	return i18n.Message{}
}
