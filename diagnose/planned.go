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

	"github.com/kueuebot/kueuebot/i18n"
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
			return nil, planErr(msg("diagnose.plan.empty", i18n.Verbatim("spec.replicatedJobs")))
		}
		out := make([]kueue.PodSet, 0, len(rjs))
		for i, v := range rjs {
			rj, _ := v.(map[string]any)
			name, _, _ := unstructured.NestedString(rj, "name")
			jobSpec, _, _ := unstructured.NestedMap(rj, "template", "spec")
			t, err := templateAt(jobSpec, "template")
			if err != nil {
				return nil, within(fmt.Sprintf("spec.replicatedJobs[%d]", i), err)
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
			return nil, planErr(msg("diagnose.plan.rayNoCluster"))
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
			return nil, unsupported(msg("diagnose.plan.podGroup", i18n.Name(g), i18n.Name(PodGroupNameLabel)))
		}
		var t corev1.PodTemplateSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &t.Spec); err != nil {
			return nil, planErr(msg("diagnose.plan.field", i18n.Verbatim("spec"), i18n.Verbatim(err.Error())))
		}
		t.Labels, t.Annotations = obj.GetLabels(), obj.GetAnnotations()
		return []kueue.PodSet{{Name: kueue.DefaultPodSetName, Template: t, Count: 1}}, nil
	case "TrainJob":
		return nil, unsupported(msg("diagnose.plan.trainJob", i18n.Verbatim("`kueuebot diagnose trainjob/NAME`")))
	case "AppWrapper":
		return nil, unsupported(msg("diagnose.plan.appWrapper", i18n.Verbatim("`kueuebot diagnose appwrapper/NAME`")))
	}
	return nil, unsupported(msg("diagnose.plan.kind", i18n.Name(obj.GetKind())))
}

// PlanError is an error of PlannedPodSets, for the user: Msg says what in
// the manifest check cannot read, or (Unsupported) why check cannot build
// the pod sets of its kind. Error is its English; an unsupported one is
// also ErrPlanUnsupported (errors.Is).
type PlanError struct {
	Msg         i18n.Message
	Unsupported bool
}

func (e *PlanError) Error() string {
	if e.Unsupported {
		return ErrPlanUnsupported.Error() + ": " + e.Msg.String()
	}
	return e.Msg.String()
}

// Is makes an unsupported PlanError ErrPlanUnsupported.
func (e *PlanError) Is(target error) bool { return e.Unsupported && target == ErrPlanUnsupported }

func planErr(m i18n.Message) error     { return &PlanError{Msg: m} }
func unsupported(m i18n.Message) error { return &PlanError{Msg: m, Unsupported: true} }

// within prefixes a PlanError with the field path it was found under.
func within(path string, err error) error {
	var pe *PlanError
	if errors.As(err, &pe) {
		return &PlanError{Msg: msg("diagnose.plan.within", i18n.Verbatim(path), pe.Msg), Unsupported: pe.Unsupported}
	}
	return planErr(msg("diagnose.plan.field", i18n.Verbatim(path), i18n.Verbatim(err.Error())))
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
		return t, planErr(msg("diagnose.plan.missing", i18n.Verbatim(strings.Join(path, "."))))
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &t); err != nil {
		return t, planErr(msg("diagnose.plan.field", i18n.Verbatim(strings.Join(path, ".")), i18n.Verbatim(err.Error())))
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
			return nil, within(fmt.Sprintf("workerGroupSpecs[%d]", i), err)
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
			return nil, within("spec."+field+"."+typ, err)
		}
		out = append(out, kueue.PodSet{Name: kueue.NewPodSetReference(typ), Template: t, Count: intAt(rs, 1, "replicas")})
	}
	if len(out) == 0 {
		var have []string
		for k := range specs {
			have = append(have, k)
		}
		return nil, planErr(msg("diagnose.plan.noReplicaTypes", i18n.Verbatim("spec."+field), i18n.Verbatim(strings.Join(order, ", ")), i18n.Verbatim(fmt.Sprintf("%q", have))))
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

	// LimitRangeDefaultsMsg, OverheadMsg and LimitRangeViolationsMsg are
	// the three lists above as catalog messages, one for one
	// (LimitRangeDefaultsIn, OverheadIn, LimitRangeViolationsIn).
	LimitRangeDefaultsMsg   []i18n.Message `json:"-"`
	OverheadMsg             []i18n.Message `json:"-"`
	LimitRangeViolationsMsg []i18n.Message `json:"-"`
}

// LimitRangeDefaultsIn is LimitRangeDefaults in l.
func (a PlanAdjustments) LimitRangeDefaultsIn(l i18n.Lang) []string {
	return textsIn(l, a.LimitRangeDefaultsMsg, a.LimitRangeDefaults)
}

// OverheadIn is Overhead in l.
func (a PlanAdjustments) OverheadIn(l i18n.Lang) []string {
	return textsIn(l, a.OverheadMsg, a.Overhead)
}

// LimitRangeViolationsIn is LimitRangeViolations in l.
func (a PlanAdjustments) LimitRangeViolationsIn(l i18n.Lang) []string {
	return textsIn(l, a.LimitRangeViolationsMsg, a.LimitRangeViolations)
}

// textsIn renders msgs in l; the English texts when msgs is not one
// message per text (a report built without them, or read from JSON).
func textsIn(l i18n.Lang, msgs []i18n.Message, english []string) []string {
	if len(msgs) != len(english) {
		return english
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.In(l)
	}
	return out
}

func (a *PlanAdjustments) overhead(m i18n.Message) {
	a.Overhead, a.OverheadMsg = append(a.Overhead, m.String()), append(a.OverheadMsg, m)
}

func (a *PlanAdjustments) violation(m i18n.Message) {
	a.LimitRangeViolations, a.LimitRangeViolationsMsg = append(a.LimitRangeViolations, m.String()), append(a.LimitRangeViolationsMsg, m)
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
				adj.overhead(msg("diagnose.plan.overhead", i18n.Name(ps.Name), i18n.Verbatim(resourceListText(spec.Overhead)), i18n.Obj("RuntimeClass", "", *rc)))
			}
		}
	}
	if len(limitRanges) > 0 {
		summary := limitrange.Summarize(limitRanges...)
		if c, ok := summary[corev1.LimitTypeContainer]; ok {
			for i := range podSets {
				ps := &podSets[i]
				spec := &ps.Template.Spec
				var filled []i18n.Message
				fill := func(cs []corev1.Container) {
					for ci := range cs {
						res := &cs[ci].Resources
						for r, q := range c.DefaultRequest {
							if _, set := res.Requests[r]; !set {
								filled = append(filled, msg("diagnose.plan.lrRequest", i18n.Name(cs[ci].Name), i18n.Name(r), i18n.Qty(FormatQuantity(q))))
							}
						}
						for r, q := range c.Default {
							if _, set := res.Limits[r]; !set {
								if _, req := res.Requests[r]; !req {
									if _, dr := c.DefaultRequest[r]; !dr {
										filled = append(filled, msg("diagnose.plan.lrLimit", i18n.Name(cs[ci].Name), i18n.Name(r), i18n.Qty(FormatQuantity(q))))
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
					slices.SortStableFunc(filled, func(a, b i18n.Message) int { return strings.Compare(a.String(), b.String()) })
					items := make([]i18n.Arg, len(filled))
					for i, f := range filled {
						items[i] = f
					}
					m := msg("diagnose.plan.lrDefaults", i18n.Name(ps.Name), i18n.Commas(items...))
					adj.LimitRangeDefaults, adj.LimitRangeDefaultsMsg = append(adj.LimitRangeDefaults, m.String()), append(adj.LimitRangeDefaultsMsg, m)
				}
			}
		}
		for i := range podSets {
			ps := &podSets[i]
			for _, e := range summary.ValidatePodSpec(&ps.Template.Spec, nil) {
				adj.violation(msg("diagnose.plan.lrViolation", i18n.Name(ps.Name), i18n.Verbatim(fmt.Sprintf("%s %v", e.Field, e.BadValue)), i18n.Verbatim(e.Detail)))
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
					adj.violation(msg("diagnose.plan.overLimit", i18n.Name(ps.Name), i18n.Name(cs[ci].Name), i18n.Verbatim(resNames(over)), i18n.Verbatim(resourceListText(res.Requests)), i18n.Verbatim(resourceListText(res.Limits))))
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
// Message is the English of Msg (MessageIn renders it in a language).
type ManifestError struct {
	Message string
	Msg     i18n.Message
}

func (e *ManifestError) Error() string { return e.Message }

// MessageIn is the error's text in l.
func (e *ManifestError) MessageIn(l i18n.Lang) string { return textIn(l, e.Msg, e.Message) }

func manifestErr(id i18n.ID, args ...i18n.Arg) *ManifestError {
	m := msg(id, args...)
	return &ManifestError{Message: m.String(), Msg: m}
}

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
		return nil, nil, manifestErr("diagnose.manifest.tooBig", i18n.Verbatim(strconv.Itoa(len(data))), i18n.Verbatim(strconv.Itoa(maxManifestBytes)))
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, manifestErr("diagnose.manifest.notYAML", i18n.Verbatim(err.Error()))
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil, nil, manifestErr("diagnose.manifest.empty", i18n.Verbatim("`kueuebot check -f job.yaml`"))
	}
	if len(docs) > 1 {
		return nil, nil, manifestErr("diagnose.manifest.several", i18n.Num(len(docs)), docKinds(docs), i18n.Verbatim("`kueuebot check -f job.yaml`"))
	}
	js, err := yaml.YAMLToJSON(docs[0])
	if err != nil {
		return nil, nil, manifestErr("diagnose.manifest.notYAML", i18n.Verbatim(err.Error()))
	}
	var m map[string]any
	// apimachinery's json keeps integers as int64, as unstructured wants.
	if err := utiljson.Unmarshal(js, &m); err != nil || m == nil {
		return nil, nil, manifestErr("diagnose.manifest.notObject")
	}
	obj := &unstructured.Unstructured{Object: m}
	if obj.IsList() || strings.HasSuffix(obj.GetKind(), "List") {
		items, _, _ := unstructured.NestedSlice(m, "items")
		return nil, nil, manifestErr("diagnose.manifest.list", i18n.Name(obj.GetKind()), i18n.Num(len(items)))
	}
	if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
		return nil, nil, manifestErr("diagnose.manifest.noKind", i18n.Verbatim("`apiVersion: batch/v1`"), i18n.Verbatim("`kind: Job`"))
	}
	gvk := obj.GroupVersionKind()
	k, ok := kinds.ByGroupKind(gvk.GroupKind())
	if !ok || k.Kind == kinds.Workload {
		what := gvk.Kind + " (" + obj.GetAPIVersion() + ")"
		if ok {
			return nil, nil, manifestErr("diagnose.manifest.workload", kindsList())
		}
		return nil, nil, manifestErr("diagnose.manifest.notJob", i18n.Verbatim(what), i18n.Commas(i18n.Names(jobKinds()...)...))
	}
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		return nil, nil, manifestErr("diagnose.manifest.noName", i18n.Verbatim("metadata.name"), i18n.Verbatim("generateName"))
	}
	if obj.GetName() == "" {
		obj.SetName(obj.GetGenerateName() + "<generated>")
	}
	return obj, k, nil
}

// jobKinds names the registry's kinds less the Workload.
func jobKinds() []string {
	var names []string
	for _, k := range kinds.All() {
		if k.Kind != kinds.Workload {
			names = append(names, k.Kind)
		}
	}
	return names
}

// kindsList is kinds.Sentence as a message argument: "Job (default),
// JobSet, ..., or Workload".
func kindsList() i18n.List {
	all := kinds.All()
	items := make([]i18n.Arg, 0, len(all))
	for i, k := range all {
		switch {
		case i == 0:
			items = append(items, msg("diagnose.manifest.kindDefault", i18n.Name(k.Kind)))
		case i == len(all)-1:
			items = append(items, msg("diagnose.manifest.kindOr", i18n.Name(k.Kind)))
		default:
			items = append(items, i18n.Name(k.Kind))
		}
	}
	return i18n.Commas(items...)
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
func docKinds(docs [][]byte) i18n.List {
	var parts []i18n.Arg
	for i, d := range docs {
		if i == 4 {
			parts = append(parts, msg("diagnose.manifest.andMore", i18n.Num(len(docs)-4)))
			break
		}
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(d, &head); err != nil || head.Kind == "" {
			parts = append(parts, msg("diagnose.manifest.noKindDoc"))
			continue
		}
		parts = append(parts, i18n.Name(strings.TrimSpace(head.Kind+" "+head.Metadata.Name)))
	}
	return i18n.Commas(parts...)
}

// PlanNotes are what Kueue's admission webhooks would refuse in the
// manifest before any quota is looked at, for a job that names a queue:
// a RayJob with its own cluster must set spec.shutdownAfterJobFinishes
// (Kueue's rayjob webhook, so that the cluster frees the quota when the
// job ends), and must not also select an existing cluster.
func PlanNotes(obj *unstructured.Unstructured) []i18n.Message {
	var out []i18n.Message
	if obj.GetKind() == "Deployment" {
		n := intAt(obj.Object, 1, "spec", "replicas")
		out = append(out, msg("diagnose.plan.note.deployment", i18n.Num(n)))
	}
	if obj.GetKind() == "RayJob" {
		_, hasCluster, _ := unstructured.NestedMap(obj.Object, "spec", "rayClusterSpec")
		sel, _, _ := unstructured.NestedMap(obj.Object, "spec", "clusterSelector")
		shutdown, _, _ := unstructured.NestedBool(obj.Object, "spec", "shutdownAfterJobFinishes")
		switch {
		case hasCluster && len(sel) > 0:
			out = append(out, msg("diagnose.plan.note.rayBoth"))
		case hasCluster && !shutdown:
			out = append(out, msg("diagnose.plan.note.rayShutdown"))
		}
	}
	return out
}
