package fetch

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// jobConverter turns a stored batch Job (jobRecord.toUnstructured) into
// the unstructured form a Snapshot carries, equal to what
// runtime.DefaultUnstructuredConverter gives (TestBatchJobConversion holds
// it so over randomly filled Jobs) at a fraction of its cost: a digest
// converts every pending Job, and the reflective converter took 30–40 µs
// per Job, more than the rest of its diagnosis. It covers every field of a
// Job whose pod template slimPodSpec has slimmed (what the store keeps);
// rarely set structures go through the reflective converter. A Job that
// is not slimmed must use that converter.
type obj = map[string]any

type jobConverter struct {
	// err is the first error of the reflective conversions.
	err error
	// podSpec, when set, is the pod template's spec already converted
	// (shared read-only between Snapshots of one classification).
	podSpec obj
	// relabel: the selector's and the template's labels are these
	// instead of the spec's (a jobRecord's, with the derived ones back).
	relabel                        bool
	selectorLabels, templateLabels obj
}

// generic converts a rarely set structure (a pointer to it) reflectively.
func (c *jobConverter) generic(v any) any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil && c.err == nil {
		c.err = err
	}
	return m
}

func putStr[S ~string](m obj, k string, v S) {
	if v != "" {
		m[k] = string(v)
	}
}

func putStrPtr[S ~string](m obj, k string, p *S) {
	if p != nil {
		m[k] = string(*p)
	}
}

func putInt32Ptr(m obj, k string, p *int32) {
	if p != nil {
		m[k] = int64(*p)
	}
}

func putInt64Ptr(m obj, k string, p *int64) {
	if p != nil {
		m[k] = *p
	}
}

func putBoolPtr(m obj, k string, p *bool) {
	if p != nil {
		m[k] = *p
	}
}

func putInt32(m obj, k string, v int32) {
	if v != 0 {
		m[k] = int64(v)
	}
}

func putStrMap(m obj, k string, v map[string]string) {
	if len(v) == 0 {
		return
	}
	out := make(obj, len(v))
	for key, val := range v {
		out[key] = val
	}
	m[k] = out
}

// setObj sets a converted map unless it is empty (omitempty).
func setObj(m obj, k string, v obj) {
	if len(v) > 0 {
		m[k] = v
	} else {
		delete(m, k)
	}
}

func putStrings[S ~string](m obj, k string, v []S) {
	if len(v) == 0 {
		return
	}
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	m[k] = out
}

// timeValue is metav1.Time's own ToUnstructured.
func timeValue(t metav1.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func putTimePtr(m obj, k string, t *metav1.Time) {
	if t != nil {
		m[k] = timeValue(*t)
	}
}

func putResourceList(m obj, k string, rl corev1.ResourceList) {
	if len(rl) == 0 {
		return
	}
	out := make(obj, len(rl))
	for name, q := range rl {
		out[string(name)] = q.String()
	}
	m[k] = out
}

// putGenericSlice converts each element of a rarely set slice of
// structures reflectively.
func putGenericSlice[T any](c *jobConverter, m obj, k string, v []T) {
	if len(v) == 0 {
		return
	}
	out := make([]any, len(v))
	for i := range v {
		out[i] = c.generic(&v[i])
	}
	m[k] = out
}

func (c *jobConverter) meta(m *metav1.ObjectMeta) obj { return c.metaLabeled(m, false, nil) }

// metaLabeled converts m, with labels (converted) instead of its own when
// relabel is set.
func (c *jobConverter) metaLabeled(m *metav1.ObjectMeta, relabel bool, labels obj) obj {
	if len(m.ManagedFields) > 0 {
		u := c.generic(m).(obj) // the store drops them; files may not
		if relabel {
			setObj(u, "labels", labels)
		}
		return u
	}
	u := obj{}
	putStr(u, "name", m.Name)
	putStr(u, "generateName", m.GenerateName)
	putStr(u, "namespace", m.Namespace)
	putStr(u, "selfLink", m.SelfLink) //nolint:staticcheck // converted as the reflective converter does
	putStr(u, "uid", m.UID)
	putStr(u, "resourceVersion", m.ResourceVersion)
	if m.Generation != 0 {
		u["generation"] = m.Generation
	}
	if !m.CreationTimestamp.IsZero() { // omitzero
		u["creationTimestamp"] = timeValue(m.CreationTimestamp)
	}
	putTimePtr(u, "deletionTimestamp", m.DeletionTimestamp)
	putInt64Ptr(u, "deletionGracePeriodSeconds", m.DeletionGracePeriodSeconds)
	if relabel {
		setObj(u, "labels", labels)
	} else {
		putStrMap(u, "labels", m.Labels)
	}
	putStrMap(u, "annotations", m.Annotations)
	if len(m.OwnerReferences) > 0 {
		refs := make([]any, len(m.OwnerReferences))
		for i := range m.OwnerReferences {
			r := &m.OwnerReferences[i]
			ref := obj{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": string(r.UID)}
			putBoolPtr(ref, "controller", r.Controller)
			putBoolPtr(ref, "blockOwnerDeletion", r.BlockOwnerDeletion)
			refs[i] = ref
		}
		u["ownerReferences"] = refs
	}
	putStrings(u, "finalizers", m.Finalizers)
	return u
}

func (c *jobConverter) jobSpec(s *batchv1.JobSpec) obj {
	u := make(obj, 12) // a Job's spec has about ten fields set
	putInt32Ptr(u, "parallelism", s.Parallelism)
	putInt32Ptr(u, "completions", s.Completions)
	putInt64Ptr(u, "activeDeadlineSeconds", s.ActiveDeadlineSeconds)
	if s.PodFailurePolicy != nil {
		u["podFailurePolicy"] = c.generic(s.PodFailurePolicy)
	}
	if s.SuccessPolicy != nil {
		u["successPolicy"] = c.generic(s.SuccessPolicy)
	}
	putInt32Ptr(u, "backoffLimit", s.BackoffLimit)
	putInt32Ptr(u, "backoffLimitPerIndex", s.BackoffLimitPerIndex)
	putInt32Ptr(u, "maxFailedIndexes", s.MaxFailedIndexes)
	if s.Selector != nil {
		u["selector"] = c.selector(s.Selector)
	}
	putBoolPtr(u, "manualSelector", s.ManualSelector)
	ps := c.podSpec
	if ps == nil {
		ps = c.convertPodSpec(&s.Template.Spec)
	}
	u["template"] = obj{"metadata": c.metaLabeled(&s.Template.ObjectMeta, c.relabel, c.templateLabels), "spec": ps}
	putInt32Ptr(u, "ttlSecondsAfterFinished", s.TTLSecondsAfterFinished)
	putStrPtr(u, "completionMode", s.CompletionMode)
	putBoolPtr(u, "suspend", s.Suspend)
	putStrPtr(u, "podReplacementPolicy", s.PodReplacementPolicy)
	putStrPtr(u, "managedBy", s.ManagedBy)
	return u
}

func (c *jobConverter) selector(s *metav1.LabelSelector) obj {
	u := obj{}
	if c.relabel {
		setObj(u, "matchLabels", c.selectorLabels)
	} else {
		putStrMap(u, "matchLabels", s.MatchLabels)
	}
	if len(s.MatchExpressions) > 0 {
		exprs := make([]any, len(s.MatchExpressions))
		for i := range s.MatchExpressions {
			e := &s.MatchExpressions[i]
			x := obj{"key": e.Key, "operator": string(e.Operator)}
			putStrings(x, "values", e.Values)
			exprs[i] = x
		}
		u["matchExpressions"] = exprs
	}
	return u
}

// convertPodSpec converts what slimPodSpec keeps of a pod template.
func (c *jobConverter) convertPodSpec(s *corev1.PodSpec) obj {
	u := obj{"containers": c.containers(s.Containers)}
	if len(s.InitContainers) > 0 {
		u["initContainers"] = c.containers(s.InitContainers)
	}
	putStr(u, "restartPolicy", s.RestartPolicy)
	putStrMap(u, "nodeSelector", s.NodeSelector)
	putStr(u, "nodeName", s.NodeName)
	if s.Affinity != nil {
		u["affinity"] = c.generic(s.Affinity)
	}
	putStr(u, "schedulerName", s.SchedulerName)
	if len(s.Tolerations) > 0 {
		tols := make([]any, len(s.Tolerations))
		for i := range s.Tolerations {
			t := &s.Tolerations[i]
			tol := obj{}
			putStr(tol, "key", t.Key)
			putStr(tol, "operator", t.Operator)
			putStr(tol, "value", t.Value)
			putStr(tol, "effect", t.Effect)
			putInt64Ptr(tol, "tolerationSeconds", t.TolerationSeconds)
			tols[i] = tol
		}
		u["tolerations"] = tols
	}
	putStr(u, "priorityClassName", s.PriorityClassName)
	putInt32Ptr(u, "priority", s.Priority)
	putStrPtr(u, "runtimeClassName", s.RuntimeClassName)
	putResourceList(u, "overhead", s.Overhead)
	putGenericSlice(c, u, "topologySpreadConstraints", s.TopologySpreadConstraints)
	putGenericSlice(c, u, "schedulingGates", s.SchedulingGates)
	putGenericSlice(c, u, "resourceClaims", s.ResourceClaims)
	if s.Resources != nil {
		u["resources"] = c.resources(s.Resources)
	}
	return u
}

// containers converts what slimContainers keeps.
func (c *jobConverter) containers(cs []corev1.Container) any {
	if cs == nil {
		return nil
	}
	out := make([]any, len(cs))
	for i := range cs {
		ct := &cs[i]
		u := obj{"name": ct.Name, "resources": c.resources(&ct.Resources)}
		putStr(u, "image", ct.Image)
		putStrPtr(u, "restartPolicy", ct.RestartPolicy)
		out[i] = u
	}
	return out
}

func (c *jobConverter) resources(r *corev1.ResourceRequirements) obj {
	u := obj{}
	putResourceList(u, "limits", r.Limits)
	putResourceList(u, "requests", r.Requests)
	putGenericSlice(c, u, "claims", r.Claims)
	return u
}

func (c *jobConverter) jobStatus(s *batchv1.JobStatus) obj {
	u := obj{}
	if len(s.Conditions) > 0 {
		conds := make([]any, len(s.Conditions))
		for i := range s.Conditions {
			jc := &s.Conditions[i]
			cond := obj{"type": string(jc.Type), "status": string(jc.Status),
				"lastProbeTime": timeValue(jc.LastProbeTime), "lastTransitionTime": timeValue(jc.LastTransitionTime)}
			putStr(cond, "reason", jc.Reason)
			putStr(cond, "message", jc.Message)
			conds[i] = cond
		}
		u["conditions"] = conds
	}
	putTimePtr(u, "startTime", s.StartTime)
	putTimePtr(u, "completionTime", s.CompletionTime)
	putInt32(u, "active", s.Active)
	putInt32(u, "succeeded", s.Succeeded)
	putInt32(u, "failed", s.Failed)
	putInt32Ptr(u, "terminating", s.Terminating)
	putStr(u, "completedIndexes", s.CompletedIndexes)
	putStrPtr(u, "failedIndexes", s.FailedIndexes)
	if s.UncountedTerminatedPods != nil {
		u["uncountedTerminatedPods"] = c.generic(s.UncountedTerminatedPods)
	}
	putInt32Ptr(u, "ready", s.Ready)
	return u
}
