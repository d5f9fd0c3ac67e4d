package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/i18n"
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
func (a *analysis) podsGatedMissing(kueueRemedy func(i18n.Message)) bool {
	k, ok := a.podsGatedKind()
	if !ok {
		return false
	}
	lq := i18n.Verbatim(strconv.Quote(a.job.queueName()))
	lower, kind, fw := i18n.Name(strings.ToLower(k.Kind)), i18n.Name(k.Kind), i18n.Name(k.Framework)
	if _, marked := a.templateMarked(); !marked {
		a.remedyM("EnableIntegration", WhoPlatform, "", msg("diagnose.pg.enable.remedy", fw, i18n.Name(k.Resource.Resource), a.jobArg()))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.unmarked.headline", a.jobArg()),
			msg("diagnose.pg.unmarked.detail", lower, lq, i18n.Name(kinds.SuspendingParentAnnotation), fw, kind))
	}
	pp := a.s.PerPod
	if !k.WorkloadPerPod || pp == nil {
		kueueRemedy(msg("diagnose.pg.controller.remedy", a.jobArg()))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.noWorkload.headline", a.jobArg()),
			msg("diagnose.pg.noWorkload.detail", lower, lq, i18n.Name(kinds.PodAdmissionGate), fw, kind, i18n.Num(replicas(a.s.Job))))
	}
	describe := fmt.Sprintf("kubectl describe %s %s", a.jobRef(), a.nsFlag())
	if pp.Pods == 0 {
		if pp.Replicas == 0 {
			a.remedyM("Scale", WhoYou, "", msg("diagnose.pg.scale.remedy", a.jobArg()))
			return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.zero.headline", a.jobArg()), msg("diagnose.pg.zero.detail", fw))
		}
		detail := msg("diagnose.pg.noPods.detail", fw, operatorMsg(k.Operator))
		if failure := replicaFailure(a.s.Job); failure != "" {
			says := msg("diagnose.pg.replicaFailure", i18n.Verbatim(failure))
			if r := parseCreateRefusal(failure, a.ns); r != nil {
				a.remedyM("FixCreate", r.who, describe, r.remedy)
				return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.refused.headline", a.jobArg(), i18n.Num(pp.Replicas), r.what),
					i18n.Join(detail, says))
			}
			a.remedyM("CheckReplicaSet", WhoYou, describe, msg("diagnose.pg.checkRS.remedy", i18n.Verbatim(failure)))
			return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.rsCannot.headline", a.jobArg(), i18n.Num(pp.Replicas)),
				i18n.Join(detail, says))
		}
		a.remedyM("CheckReplicaSet", WhoYou, describe, msg("diagnose.pg.events.remedy"))
		return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.noPods.headline", a.jobArg(), i18n.Num(pp.Replicas)), detail)
	}
	kueueRemedy(msg("diagnose.pg.pod.remedy"))
	return a.setM(CodeWorkloadMissing, CauseNone, msg("diagnose.pg.pod.headline", i18n.Name(pp.Pod), a.jobArg()),
		msg("diagnose.pg.pod.detail", pp.countMsg(a.jobArg()), fw, i18n.Name(pp.Pod)))
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

// countMsg says how many of the pods Kueue admitted.
func (pp *PerPodCount) countMsg(ref i18n.Object) i18n.Message {
	m := msg("diagnose.pp.count.some", i18n.Num(pp.Admitted), i18n.Num(pp.Pods), ref)
	if pp.Admitted == pp.Pods {
		m = msg("diagnose.pp.count.all", i18n.Num(pp.Pods), ref)
		if pp.Pods == 1 {
			m = msg("diagnose.pp.count.one", ref)
		}
	}
	if int64(pp.Pods) < pp.Replicas {
		m = msg("diagnose.pp.count.replicas", m, i18n.Num(pp.Pods), i18n.Num(pp.Replicas))
	}
	return m
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
	ref := a.jobArg()
	pod := i18n.Ref("pod", a.ns, pp.Pod)
	count := pp.countMsg(ref)
	headline, detailMsg := v.HeadlineMsg, v.DetailMsg
	if headline.IsZero() { // a verdict Kueue's own reason gave, in its words
		headline, detailMsg = msg("diagnose.quotedPlain", i18n.Verbatim(v.Headline)), msg("diagnose.quotedPlain", i18n.Verbatim(v.Detail))
	}
	head := msg("diagnose.pp.head.prefixed", count, pod, headline)
	if h, ok := replaceObject(headline, ref, pod); ok {
		head = msg("diagnose.pp.head.replaced", count, h)
	}
	gate := i18n.Name(kinds.PodAdmissionGate)
	why := msg("diagnose.pp.why.gate", gate)
	if len(pp.Waiting) > 0 {
		why = msg("diagnose.pp.why.gateOthers", gate, nameList(pp.Waiting...))
		if n := pp.Pods - pp.Admitted - 1 - len(pp.Waiting); n > 0 {
			why = msg("diagnose.pp.why.gateMore", gate, nameList(pp.Waiting...), i18n.Num(n))
		}
	}
	if pp.Pods == pp.Admitted {
		why = msg("diagnose.pp.why.notRunning")
		if len(a.s.Pods) == 1 && a.s.Pods[0].Status.Phase == corev1.PodRunning {
			why = msg("diagnose.pp.why.allRun")
		}
	}
	detail := msg("diagnose.pp.detail", count, a.wlArg(a.wl.Name), i18n.Name(pp.Pod), why, detailMsg)
	if v.Code == CodeWaitingForQuota && pp.Admitted > 0 && pp.Admitted < pp.Pods {
		// The pods share the template and so the LocalQueue: the admitted
		// ones hold part of the quota the rest waits for.
		detail = i18n.Join(detail, msg("diagnose.pp.among", i18n.Num(pp.Admitted), ref))
	}
	v.HeadlineMsg, v.Headline = head, head.String()
	v.DetailMsg, v.Detail = detail, detail.String()
}

// replaceObject is m with its first argument naming object from (nested
// messages and lists included) naming to instead; false when m names no
// such object.
func replaceObject(m i18n.Message, from, to i18n.Object) (i18n.Message, bool) {
	var repl func(a i18n.Arg) (i18n.Arg, bool)
	repl = func(a i18n.Arg) (i18n.Arg, bool) {
		switch v := a.(type) {
		case i18n.Object:
			if v == from {
				return to, true
			}
		case i18n.Message:
			for i, x := range v.Args {
				if y, ok := repl(x); ok {
					args := slices.Clone(v.Args)
					args[i] = y
					return i18n.Message{ID: v.ID, Args: args}, true
				}
			}
		case i18n.List:
			for i, x := range v.Items {
				if y, ok := repl(x); ok {
					items := slices.Clone(v.Items)
					items[i] = y
					v.Items = items
					return v, true
				}
			}
		}
		return a, false
	}
	r, ok := repl(m)
	if !ok {
		return m, false
	}
	return r.(i18n.Message), true
}
