package diagnose

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/kinds"
)

// Kueue's StatefulSet and Deployment integrations never suspend their
// object: their webhooks mark its pod template (annotation
// kueue.x-k8s.io/pod-suspending-parent) so that Kueue's Pod webhook gates
// every Pod made from it, and the Pods wait, gated, until their Workload
// is admitted. A StatefulSet's Pods are one pod group whose Workload the
// StatefulSet owns; each Pod of a Deployment is a Workload of its own.

// podsGatedKind is the registry's entry for the target when Kueue holds
// its Pods rather than the object (StatefulSet, Deployment).
func (a *analysis) podsGatedKind() (*kinds.Kind, bool) {
	k, ok := kinds.ByKind(a.r.Target.Kind)
	if !ok || !k.PodsGated || a.s.Job == nil {
		return nil, false
	}
	return k, true
}

// templateMarked reports whether Kueue's webhook marked the object's pod
// template for its Pods to be gated, and with which framework.
func (a *analysis) templateMarked() (string, bool) {
	v, found, _ := unstructured.NestedString(a.s.Job.Object, "spec", "template", "metadata", "annotations", kinds.SuspendingParentAnnotation)
	return v, found
}

// podsGatedMissing explains a StatefulSet or Deployment that names a
// LocalQueue and has no Workload. It returns false for other kinds.
func (a *analysis) podsGatedMissing(kueueRemedy func(string, ...any)) bool {
	k, ok := a.podsGatedKind()
	if !ok {
		return false
	}
	lq := a.job.queueName()
	if _, marked := a.templateMarked(); !marked {
		a.remedy("EnableIntegration", WhoPlatform, "", "Ask the platform team whether Kueue's %s integration is enabled (integrations.frameworks) and its webhook serves %s; then re-apply %s so that the webhook sees it.", k.Framework, k.Resource.Resource, a.jobRef())
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue does not manage %s: its webhook never marked the pod template.", a.jobRef()),
			fmt.Sprintf("The %s names LocalQueue %q, but its pod template has no %s annotation, which Kueue's %s webhook adds to every %s that names a LocalQueue when it is created or updated, so that Kueue gates its pods. Without it the pods are not Kueue's: the %s integration is not enabled, or the webhook did not see the %s. Kubernetes runs them outside any quota.",
				strings.ToLower(k.Kind), lq, kinds.SuspendingParentAnnotation, k.Framework, k.Kind, k.Framework, strings.ToLower(k.Kind)))
	}
	pp := a.s.PerPod
	if !k.WorkloadPerPod || pp == nil {
		kueueRemedy("Ask the platform team to check Kueue's controller: it creates the Workload of %s as soon as it sees it, and its logs name it if it fails.", a.jobRef())
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue has not created the Workload of %s yet.", a.jobRef()),
			fmt.Sprintf("The %s names LocalQueue %q and Kueue's webhook marked its pod template, so its pods wait behind Kueue's scheduling gate %s; Kueue's %s integration creates the pod group's one Workload from the %s itself (pod set main, %d pods), and there is none.",
				strings.ToLower(k.Kind), lq, kinds.PodAdmissionGate, k.Framework, k.Kind, replicas(a.s.Job)))
	}
	if pp.Pods == 0 {
		if pp.Replicas == 0 {
			a.remedy("Scale", WhoYou, "", "Scale %s up (spec.replicas): Kueue queues each of its pods once it exists.", a.jobRef())
			return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("%s is scaled to 0 replicas: it has no pods for Kueue to admit.", a.jobRef()),
				fmt.Sprintf("Kueue's %s integration makes a Workload of each pod of a Deployment, and spec.replicas is 0.", k.Framework))
		}
		detail := fmt.Sprintf("Kueue's %s integration makes a Workload of each pod of a Deployment, once its ReplicaSet has created the pod; no pod of it exists. Creating them is the job of %s, not Kueue's.", k.Framework, k.Operator)
		if msg := replicaFailure(a.s.Job); msg != "" {
			if r := parseCreateRefusal(msg, a.ns); r != nil {
				a.remedy("FixCreate", r.who, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), "%s", r.remedy)
				return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("%s has no pods yet (spec.replicas %d): %s, so Kueue has nothing to admit.", a.jobRef(), pp.Replicas, r.what),
					detail+" The Deployment's ReplicaFailure condition says: "+msg)
			}
			a.remedy("CheckReplicaSet", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), "Fix what refuses its pods (the Deployment's ReplicaFailure condition): %s", msg)
			return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("%s has no pods yet (spec.replicas %d): its ReplicaSet cannot create them, so Kueue has nothing to admit.", a.jobRef(), pp.Replicas),
				detail+" The Deployment's ReplicaFailure condition says: "+msg)
		}
		a.remedy("CheckReplicaSet", WhoYou, fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag()), "Look at the events of the Deployment and of its newest ReplicaSet: a FailedCreate there says what refuses its pods.")
		return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("%s has no pods yet (spec.replicas %d), so Kueue has nothing to admit.", a.jobRef(), pp.Replicas), detail)
	}
	kueueRemedy("Ask the platform team to check Kueue's controller: it creates a pod's Workload as soon as it sees the pod, and its logs name the pod if it fails.")
	return a.set(CodeWorkloadMissing, CauseNone, fmt.Sprintf("Kueue has not created the Workload of pod %s of %s yet.", pp.Pod, a.jobRef()),
		fmt.Sprintf("%s. Kueue's %s integration makes a Workload of each pod; pod %s has none.", pp.countSentence(a.jobRef()), k.Framework, pp.Pod))
}

// replicaFailure is the message of a Deployment's ReplicaFailure=True
// condition (its ReplicaSet could not create a Pod: a ResourceQuota, an
// admission webhook, a PodSecurity level), or "".
func replicaFailure(obj *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "ReplicaFailure" && m["status"] == "True" {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}

// replicas is spec.replicas of a StatefulSet or Deployment (1 when unset).
func replicas(obj *unstructured.Unstructured) int64 {
	n, found, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if !found {
		return 1
	}
	return n
}

// countSentence says how many of the pods Kueue admitted.
func (pp *PerPodCount) countSentence(ref string) string {
	s := fmt.Sprintf("%d of %d pods of %s are admitted", pp.Admitted, pp.Pods, ref)
	if pp.Admitted == pp.Pods {
		s = fmt.Sprintf("All %d pods of %s are admitted", pp.Pods, ref)
		if pp.Pods == 1 {
			s = fmt.Sprintf("The one pod of %s is admitted", ref)
		}
	}
	if int64(pp.Pods) < pp.Replicas {
		s += fmt.Sprintf(" (%d of its %d replicas exist)", pp.Pods, pp.Replicas)
	}
	return s
}

// perPodVerdict rewrites the verdict of a Deployment, which the analyzers
// reached on the Workload of one of its pods (PerPodCount.Pod), so that it
// says what Kueue counts: how many of its pods are admitted, which pod
// the answer is about, and which others wait with it.
func (a *analysis) perPodVerdict() {
	pp := a.s.PerPod
	if pp == nil || a.wl == nil || pp.Pod == "" {
		return
	}
	v := &a.r.Verdict
	ref := a.jobRef()
	pod := "pod/" + pp.Pod
	count := pp.countSentence(ref)
	if strings.Contains(v.Headline, ref) {
		v.Headline = count + "; " + strings.Replace(v.Headline, ref, pod, 1)
	} else {
		v.Headline = count + ". " + pod + ": " + v.Headline
	}
	why := "the oldest one Kueue still holds at its scheduling gate " + kinds.PodAdmissionGate + " (Kueue admits them in order, so the others wait behind it"
	if len(pp.Waiting) > 0 {
		others := strings.Join(pp.Waiting, ", ")
		if n := pp.Pods - pp.Admitted - 1 - len(pp.Waiting); n > 0 {
			others += fmt.Sprintf(" and %d more", n)
		}
		why += ": " + others
	}
	why += ")"
	if pp.Pods == pp.Admitted {
		why = "the first one that is not running"
		if len(a.s.Pods) == 1 && a.s.Pods[0].Status.Phase == corev1.PodRunning {
			why = "the first of them (all run)"
		}
	}
	detail := fmt.Sprintf("Kueue makes a Workload of each pod of a Deployment. %s; this answer is about Workload %s of pod %s, %s. ", count, a.wl.Name, pp.Pod, why) + v.Detail
	if v.Code == CodeWaitingForQuota && pp.Admitted > 0 && pp.Admitted < pp.Pods {
		// The pods share the template and so the LocalQueue: the admitted
		// ones hold part of the quota the rest waits for.
		detail += fmt.Sprintf(" Among the workloads that hold the quota are the %d admitted pods of %s itself.", pp.Admitted, ref)
	}
	a.r.Verdict.Detail = detail
}
