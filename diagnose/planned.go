package diagnose

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/util/limitrange"
	utilresource "sigs.k8s.io/kueue/pkg/util/resource"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/kinds"
)

// A planned job is a manifest not submitted yet: `kueuebot check` builds
// the pod sets Kueue would build for it and runs the same quota
// arithmetic as for a pending Workload.
//
// Kueue's own PodSets() (sigs.k8s.io/kueue/pkg/controller/jobs/<kind>)
// cannot be imported: each pulls in jobframework, controller-runtime and
// Kueue's cache and scheduler (124 more packages, decision "check
// reproduces Kueue's pod sets"). PlannedPodSets reproduces them for the
// kinds of the registry from the unstructured object, with the defaults
// the API server and the kinds' CRDs apply on create; test/e2e holds the
// result equal to the Workload the real Kueue creates for each kind.
// AdjustPlannedPodSets then applies what Kueue's AdjustResources applies
// (pkg/workload/resources.go), with Kueue's own limitrange package.

// ErrPlanUnsupported is returned for a kind whose pod sets check cannot
// build from the manifest alone.
var ErrPlanUnsupported = errors.New("check cannot build the pod sets of this kind from its manifest")

// PlannedPodSets returns the pod sets Kueue builds for obj, in Kueue's
// order, as its integration for obj's kind does once the API server has
// applied its defaults. The pod templates are copies.
func PlannedPodSets(obj *unstructured.Unstructured) ([]kueue.PodSet, error) {
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	switch obj.GetKind() {
	case "Job":
		t, err := templateAt(spec, "template")
		if err != nil {
			return nil, err
		}
		ps := kueue.PodSet{Name: kueue.DefaultPodSetName, Template: t, Count: jobPods(spec)}
		if v, ok := obj.GetAnnotations()[JobMinParallelismAnnotation]; ok {
			if n, err := strconv.Atoi(v); err == nil {
				m := int32(n)
				ps.MinCount = &m
			}
		}
		return []kueue.PodSet{ps}, nil
	case "JobSet":
		rjs, _, _ := unstructured.NestedSlice(spec, "replicatedJobs")
		if len(rjs) == 0 {
			return nil, errors.New("spec.replicatedJobs is empty")
		}
		out := make([]kueue.PodSet, 0, len(rjs))
		for i, v := range rjs {
			rj, _ := v.(map[string]any)
			name, _, _ := unstructured.NestedString(rj, "name")
			jobSpec, _, _ := unstructured.NestedMap(rj, "template", "spec")
			t, err := templateAt(jobSpec, "template")
			if err != nil {
				return nil, fmt.Errorf("spec.replicatedJobs[%d]: %w", i, err)
			}
			replicas := intAt(rj, 1, "replicas")
			out = append(out, kueue.PodSet{Name: kueue.NewPodSetReference(name), Template: t, Count: replicas * jobPods(jobSpec)})
		}
		return out, nil
	case "RayCluster":
		return rayPodSets(spec)
	case "RayJob":
		cluster, _, _ := unstructured.NestedMap(spec, "rayClusterSpec")
		if cluster == nil {
			return nil, errors.New("spec.rayClusterSpec is missing (a RayJob that selects an existing RayCluster has no pod sets of its own)")
		}
		out, err := rayPodSets(cluster)
		if err != nil {
			return nil, err
		}
		mode, _, _ := unstructured.NestedString(spec, "submissionMode")
		if mode == "" || mode == "K8sJobMode" { // the CRD's default
			t, err := submitterTemplate(spec, cluster)
			if err != nil {
				return nil, err
			}
			out = append(out, kueue.PodSet{Name: "submitter", Template: t, Count: 1})
		}
		return out, nil
	case "PyTorchJob":
		return replicaPodSets(spec, "pytorchReplicaSpecs", "Master", "Worker")
	case "TFJob":
		return replicaPodSets(spec, "tfReplicaSpecs", "Chief", "Master", "PS", "Worker", "Evaluator")
	case "XGBoostJob":
		return replicaPodSets(spec, "xgbReplicaSpecs", "Master", "Worker")
	case "PaddleJob":
		return replicaPodSets(spec, "paddleReplicaSpecs", "Master", "Worker")
	case "JAXJob":
		return replicaPodSets(spec, "jaxReplicaSpecs", "Worker")
	case "MPIJob":
		return replicaPodSets(spec, "mpiReplicaSpecs", "Launcher", "Worker")
	case "LeaderWorkerSet":
		lwt, _, _ := unstructured.NestedMap(spec, "leaderWorkerTemplate")
		size := intAt(lwt, 1, "size")
		workers, err := templateAt(lwt, "workerTemplate")
		if err != nil {
			return nil, err
		}
		workers.ObjectMeta = emptyMeta // Kueue keeps only the spec
		name := kueue.PodSetReference(kueue.DefaultPodSetName)
		var out []kueue.PodSet
		if _, ok := lwt["leaderTemplate"]; ok {
			leader, err := templateAt(lwt, "leaderTemplate")
			if err != nil {
				return nil, err
			}
			leader.ObjectMeta = emptyMeta
			out = append(out, kueue.PodSet{Name: "leader", Template: leader, Count: 1})
			name, size = "worker", size-1
		}
		return append(out, kueue.PodSet{Name: name, Template: workers, Count: size}), nil
	case "StatefulSet":
		// Kueue's statefulset integration: the pods form one pod group,
		// one Workload whose single pod set holds spec.replicas pods of
		// the template.
		t, err := templateAt(spec, "template")
		if err != nil {
			return nil, err
		}
		t.ObjectMeta = emptyMeta
		return []kueue.PodSet{{Name: kueue.DefaultPodSetName, Template: t, Count: intAt(spec, 1, "replicas")}}, nil
	case "Deployment":
		// Kueue's deployment integration: each pod is a Workload of its
		// own (pod set main, one pod); PlanNotes says so with the count.
		t, err := templateAt(spec, "template")
		if err != nil {
			return nil, err
		}
		t.ObjectMeta = emptyMeta
		return []kueue.PodSet{{Name: kueue.DefaultPodSetName, Template: t, Count: 1}}, nil
	case "Pod":
		if g := obj.GetLabels()[PodGroupNameLabel]; g != "" {
			return nil, fmt.Errorf("%w: pod group %s becomes one Workload of all its pods; check one pod at a time, without the %s label, or the job that creates them", ErrPlanUnsupported, g, PodGroupNameLabel)
		}
		var t corev1.PodTemplateSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &t.Spec); err != nil {
			return nil, fmt.Errorf("spec: %w", err)
		}
		t.Labels, t.Annotations = obj.GetLabels(), obj.GetAnnotations()
		return []kueue.PodSet{{Name: kueue.DefaultPodSetName, Template: t, Count: 1}}, nil
	case "TrainJob":
		return nil, fmt.Errorf("%w: a TrainJob's pods come from its TrainingRuntime (spec.runtimeRef), which Kueue merges with the job through the Trainer's JobSet; submit it and ask `kueuebot diagnose trainjob/NAME`", ErrPlanUnsupported)
	case "AppWrapper":
		return nil, fmt.Errorf("%w: an AppWrapper's pod sets are declared per wrapped component (spec.components[].podSets) inside raw objects; submit it and ask `kueuebot diagnose appwrapper/NAME`", ErrPlanUnsupported)
	}
	return nil, fmt.Errorf("%w: kind %s", ErrPlanUnsupported, obj.GetKind())
}

var emptyMeta = corev1.PodTemplateSpec{}.ObjectMeta

// jobPods is Kueue's pod count of a batch Job spec: parallelism (the API
// server defaults it to 1), or completions when fewer.
func jobPods(spec map[string]any) int32 {
	n := intAt(spec, 1, "parallelism")
	if c, ok, _ := unstructured.NestedInt64(spec, "completions"); ok && int32(c) < n {
		n = int32(c)
	}
	return n
}

// intAt reads an integer field, def when absent.
func intAt(m map[string]any, def int32, path ...string) int32 {
	v, ok, err := unstructured.NestedInt64(m, path...)
	if !ok || err != nil {
		if f, ok, _ := unstructured.NestedFloat64(m, path...); ok {
			return int32(f)
		}
		return def
	}
	return int32(v)
}

// templateAt converts the pod template at path.
func templateAt(m map[string]any, path ...string) (corev1.PodTemplateSpec, error) {
	var t corev1.PodTemplateSpec
	raw, ok, _ := unstructured.NestedMap(m, path...)
	if !ok {
		return t, fmt.Errorf("%s is missing", strings.Join(path, "."))
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &t); err != nil {
		return t, fmt.Errorf("%s: %w", strings.Join(path, "."), err)
	}
	return t, nil
}

// rayPodSets is Kueue's raycluster.BuildPodSets: the head (one pod), then
// each worker group with replicas × numOfHosts pods. KubeRay's CRD defaults
// a worker group's replicas to 0 and numOfHosts to 1.
func rayPodSets(cluster map[string]any) ([]kueue.PodSet, error) {
	head, err := templateAt(cluster, "headGroupSpec", "template")
	if err != nil {
		return nil, err
	}
	out := []kueue.PodSet{{Name: "head", Template: head, Count: 1}}
	groups, _, _ := unstructured.NestedSlice(cluster, "workerGroupSpecs")
	for i, v := range groups {
		g, _ := v.(map[string]any)
		name, _, _ := unstructured.NestedString(g, "groupName")
		t, err := templateAt(g, "template")
		if err != nil {
			return nil, fmt.Errorf("workerGroupSpecs[%d]: %w", i, err)
		}
		count := intAt(g, 0, "replicas")
		if hosts := intAt(g, 1, "numOfHosts"); hosts > 1 {
			count *= hosts
		}
		out = append(out, kueue.PodSet{Name: kueue.NewPodSetReference(name), Template: t, Count: count})
	}
	return out, nil
}

// submitterTemplate is the RayJob's submitterPodTemplate, else the default
// submitter Kueue counts (the KubeRay operator's: 500m cpu and 200Mi
// memory requested, 1 cpu and 1Gi limits, the head's image).
func submitterTemplate(spec, cluster map[string]any) (corev1.PodTemplateSpec, error) {
	if _, ok := spec["submitterPodTemplate"]; ok {
		return templateAt(spec, "submitterPodTemplate")
	}
	head, err := templateAt(cluster, "headGroupSpec", "template")
	if err != nil {
		return head, err
	}
	image := ""
	if len(head.Spec.Containers) > 0 {
		image = head.Spec.Containers[0].Image
	}
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "ray-job-submitter", Image: image,
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: mustQ("1"), corev1.ResourceMemory: mustQ("1Gi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: mustQ("500m"), corev1.ResourceMemory: mustQ("200Mi")},
			},
		}},
	}}, nil
}

// replicaPodSets builds the pod sets of a Kubeflow job (or MPIJob) from its
// replica specs, in Kueue's order for the kind; a replica type the
// manifest does not have is left out, and replicas default to 1.
func replicaPodSets(spec map[string]any, field string, order ...string) ([]kueue.PodSet, error) {
	specs, _, _ := unstructured.NestedMap(spec, field)
	var out []kueue.PodSet
	for _, typ := range order {
		rs, ok := specs[typ].(map[string]any)
		if !ok {
			continue
		}
		t, err := templateAt(rs, "template")
		if err != nil {
			return nil, fmt.Errorf("spec.%s.%s: %w", field, typ, err)
		}
		out = append(out, kueue.PodSet{Name: kueue.NewPodSetReference(typ), Template: t, Count: intAt(rs, 1, "replicas")})
	}
	if len(out) == 0 {
		var have []string
		for k := range specs {
			have = append(have, k)
		}
		return nil, fmt.Errorf("spec.%s has none of the replica types Kueue reads (%s; found %q): the names are case-sensitive", field, strings.Join(order, ", "), have)
	}
	return out, nil
}

// PlanAdjustments is what AdjustPlannedPodSets applied or could not apply.
type PlanAdjustments struct {
	// LimitRangeDefaults lists, per pod set, the container defaults a
	// LimitRange of the namespace filled in ("cpu request 500m (LimitRange
	// defaults)").
	LimitRangeDefaults []string `json:"limitRangeDefaults,omitempty"`
	// Overhead lists the RuntimeClass overheads added.
	Overhead []string `json:"overhead,omitempty"`
	// UnknownRuntimeClasses are RuntimeClasses the pods name that could
	// not be read: their overhead is not counted.
	UnknownRuntimeClasses []string `json:"unknownRuntimeClasses,omitempty"`
	// LimitRangeViolations are Kueue's refusals of a pod set that breaks a
	// LimitRange's min or max, or of a container whose request exceeds its
	// limit once the defaults are in (Kueue's ValidateLimitRange and
	// ValidateResources): the Workload would never be admitted.
	LimitRangeViolations []string `json:"limitRangeViolations,omitempty"`
}

// AdjustPlannedPodSets changes the pod sets' templates as Kueue's
// workload.AdjustResources does before it counts them: the pod overhead of
// the RuntimeClass a template names (when the template sets none), then
// the container defaults of the namespace's LimitRanges (Kueue's
// limitrange.Summarize: the first default wins), then limits as missing
// requests. runtimeClasses holds the ones read; a name missing from it is
// reported, not guessed. limitRanges nil means none were read.
func AdjustPlannedPodSets(podSets []kueue.PodSet, limitRanges []corev1.LimitRange, runtimeClasses map[string]*nodev1.RuntimeClass) PlanAdjustments {
	var adj PlanAdjustments
	for i := range podSets {
		ps := &podSets[i]
		spec := &ps.Template.Spec
		if rc := spec.RuntimeClassName; rc != nil && len(spec.Overhead) == 0 {
			obj, ok := runtimeClasses[*rc]
			switch {
			case !ok || obj == nil:
				if !containsString(adj.UnknownRuntimeClasses, *rc) {
					adj.UnknownRuntimeClasses = append(adj.UnknownRuntimeClasses, *rc)
				}
			case obj.Overhead != nil && len(obj.Overhead.PodFixed) > 0:
				spec.Overhead = obj.Overhead.PodFixed.DeepCopy()
				adj.Overhead = append(adj.Overhead, fmt.Sprintf("pod set %s: %s per pod (RuntimeClass %s)", ps.Name, resourceListText(spec.Overhead), *rc))
			}
		}
	}
	if len(limitRanges) > 0 {
		summary := limitrange.Summarize(limitRanges...)
		if c, ok := summary[corev1.LimitTypeContainer]; ok {
			for i := range podSets {
				ps := &podSets[i]
				spec := &ps.Template.Spec
				var filled []string
				fill := func(cs []corev1.Container) {
					for ci := range cs {
						res := &cs[ci].Resources
						for r, q := range c.DefaultRequest {
							if _, set := res.Requests[r]; !set {
								filled = append(filled, fmt.Sprintf("container %s: %s request %s", cs[ci].Name, r, FormatQuantity(q)))
							}
						}
						for r, q := range c.Default {
							if _, set := res.Limits[r]; !set {
								if _, req := res.Requests[r]; !req {
									if _, dr := c.DefaultRequest[r]; !dr {
										filled = append(filled, fmt.Sprintf("container %s: %s limit %s (and so request)", cs[ci].Name, r, FormatQuantity(q)))
									}
								}
							}
						}
						res.Limits = utilresource.MergeResourceListKeepFirst(res.Limits, c.Default)
						res.Requests = utilresource.MergeResourceListKeepFirst(res.Requests, c.DefaultRequest)
					}
				}
				fill(spec.InitContainers)
				fill(spec.Containers)
				if len(filled) > 0 {
					slices.Sort(filled)
					adj.LimitRangeDefaults = append(adj.LimitRangeDefaults, fmt.Sprintf("pod set %s: %s", ps.Name, strings.Join(filled, ", ")))
				}
			}
		}
		for i := range podSets {
			ps := &podSets[i]
			for _, e := range summary.ValidatePodSpec(&ps.Template.Spec, nil) {
				adj.LimitRangeViolations = append(adj.LimitRangeViolations, fmt.Sprintf("pod set %s: %s %v: %s", ps.Name, e.Field, e.BadValue, e.Detail))
			}
		}
	}
	for i := range podSets {
		ps := &podSets[i]
		spec := &ps.Template.Spec
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for ci := range cs {
				res := &cs[ci].Resources
				res.Requests = utilresource.MergeResourceListKeepFirst(res.Requests, res.Limits)
				if over := resources.NewRequests(res.Requests).GreaterKeys(resources.NewRequests(res.Limits)); len(over) > 0 {
					adj.LimitRangeViolations = append(adj.LimitRangeViolations, fmt.Sprintf("pod set %s: container %s requests more %s than its limit (%s / %s), which Kueue refuses", ps.Name, cs[ci].Name, resNames(over), resourceListText(res.Requests), resourceListText(res.Limits)))
				}
			}
		}
	}
	return adj
}

// RuntimeClassNames returns the RuntimeClasses the pod sets name and whose
// overhead Kueue would read (templates without their own overhead).
func RuntimeClassNames(podSets []kueue.PodSet) []string {
	var out []string
	for _, ps := range podSets {
		if rc := ps.Template.Spec.RuntimeClassName; rc != nil && *rc != "" && len(ps.Template.Spec.Overhead) == 0 && !containsString(out, *rc) {
			out = append(out, *rc)
		}
	}
	return out
}

func containsString(s []string, v string) bool { return slices.Contains(s, v) }

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

func resourceListText(rl corev1.ResourceList) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(rl)) {
		q := rl[r]
		parts = append(parts, fmt.Sprintf("%s %s", FormatQuantity(q), r))
	}
	return strings.Join(parts, ", ")
}

// ManifestError is a manifest check cannot use; its text is for the user.
type ManifestError struct{ Message string }

func (e *ManifestError) Error() string { return e.Message }

// maxManifestBytes bounds what ParseManifest reads.
const maxManifestBytes = 1 << 20

// ParseManifest reads one Kubernetes object from YAML or JSON (as kubectl
// reads -f: sigs.k8s.io/yaml) and checks that it is a job kind kueuebot
// knows and Kueue manages. It refuses, with a *ManifestError that says
// what to do: empty input, input that is not YAML, several documents (or a
// List), an object without apiVersion and kind, and a kind that is not in
// the registry (or the Workload itself).
func ParseManifest(data []byte) (*unstructured.Unstructured, *kinds.Kind, error) {
	if len(data) > maxManifestBytes {
		return nil, nil, &ManifestError{fmt.Sprintf("The manifest is %d bytes; check reads at most %d (one job).", len(data), maxManifestBytes)}
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, &ManifestError{"This is not YAML or JSON I can read: " + err.Error() + "."}
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil, nil, &ManifestError{"The manifest is empty: give me one job's YAML (for example `kueuebot check -f job.yaml`)."}
	}
	if len(docs) > 1 {
		return nil, nil, &ManifestError{fmt.Sprintf("The manifest holds %d YAML documents (%s); check takes one job at a time. Split it and check each job, e.g. `kueuebot check -f job.yaml`.", len(docs), docKinds(docs))}
	}
	js, err := yaml.YAMLToJSON(docs[0])
	if err != nil {
		return nil, nil, &ManifestError{"This is not YAML or JSON I can read: " + err.Error() + "."}
	}
	var m map[string]any
	// apimachinery's json keeps integers as int64, as unstructured wants.
	if err := utiljson.Unmarshal(js, &m); err != nil || m == nil {
		return nil, nil, &ManifestError{"This is not a Kubernetes object: the YAML is not a mapping with apiVersion, kind and metadata."}
	}
	obj := &unstructured.Unstructured{Object: m}
	if obj.IsList() || strings.HasSuffix(obj.GetKind(), "List") {
		items, _, _ := unstructured.NestedSlice(m, "items")
		return nil, nil, &ManifestError{fmt.Sprintf("The manifest is a %s of %d objects; check takes one job at a time. Check each item on its own.", obj.GetKind(), len(items))}
	}
	if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
		return nil, nil, &ManifestError{"The manifest has no apiVersion or kind: a job manifest starts with e.g. `apiVersion: batch/v1` and `kind: Job`."}
	}
	gvk := obj.GroupVersionKind()
	k, ok := kinds.ByGroupKind(gvk.GroupKind())
	if !ok || k.Kind == kinds.Workload {
		what := gvk.Kind + " (" + obj.GetAPIVersion() + ")"
		if ok {
			return nil, nil, &ManifestError{"The manifest is a Workload, which Kueue queues as it is; check takes the job that creates one (" + kinds.Sentence() + ")."}
		}
		return nil, nil, &ManifestError{fmt.Sprintf("Kind %s is not a job kind kueuebot checks for Kueue. Kinds it checks: %s.", what, jobKindsSentence())}
	}
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		return nil, nil, &ManifestError{"The manifest has no metadata.name (or generateName)."}
	}
	if obj.GetName() == "" {
		obj.SetName(obj.GetGenerateName() + "<generated>")
	}
	return obj, k, nil
}

// jobKindsSentence names the registry's kinds less the Workload.
func jobKindsSentence() string {
	var names []string
	for _, k := range kinds.All() {
		if k.Kind != kinds.Workload {
			names = append(names, k.Kind)
		}
	}
	return strings.Join(names, ", ")
}

// stripComments drops YAML comment lines, to tell an empty document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// docKinds names the documents' kinds and names, e.g. "Job a, Job b".
func docKinds(docs [][]byte) string {
	var parts []string
	for i, d := range docs {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(docs)-4))
			break
		}
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(d, &head); err != nil || head.Kind == "" {
			parts = append(parts, "a document without kind")
			continue
		}
		parts = append(parts, strings.TrimSpace(head.Kind+" "+head.Metadata.Name))
	}
	return strings.Join(parts, ", ")
}

// PlanNotes are what Kueue's admission webhooks would refuse in the
// manifest before any quota is looked at, for a job that names a queue:
// a RayJob with its own cluster must set spec.shutdownAfterJobFinishes
// (Kueue's rayjob webhook, so that the cluster frees the quota when the
// job ends), and must not also select an existing cluster.
func PlanNotes(obj *unstructured.Unstructured) []string {
	var out []string
	if obj.GetKind() == "Deployment" {
		n := intAt(obj.Object, 1, "spec", "replicas")
		out = append(out, fmt.Sprintf("Kueue makes a Workload of each pod of a Deployment: this checks one pod of the %d (spec.replicas); Kueue admits them one at a time, as quota frees, so some may run while others wait.", n))
	}
	if obj.GetKind() == "RayJob" {
		_, hasCluster, _ := unstructured.NestedMap(obj.Object, "spec", "rayClusterSpec")
		sel, _, _ := unstructured.NestedMap(obj.Object, "spec", "clusterSelector")
		shutdown, _, _ := unstructured.NestedBool(obj.Object, "spec", "shutdownAfterJobFinishes")
		switch {
		case hasCluster && len(sel) > 0:
			out = append(out, "Kueue's webhook would refuse this RayJob: a Kueue-managed RayJob may not set both spec.rayClusterSpec and spec.clusterSelector.")
		case hasCluster && !shutdown:
			out = append(out, "Kueue's webhook would refuse this RayJob: a Kueue-managed RayJob must set spec.shutdownAfterJobFinishes: true, so that its cluster frees the quota when the job ends. Add it before you submit.")
		}
	}
	return out
}
