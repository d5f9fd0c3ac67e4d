package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// ineligibility says why a flavor cannot take a pod set at all.
type ineligibility struct {
	cause  Cause // CauseUntoleratedTaint, CauseNodeAffinityMismatch, CauseFlavorNotFound
	reason string
	// msg is reason as a catalog message.
	msg i18n.Message
	// fix is a short hint: the toleration or label to use.
	fix string
	// taint is the untolerated taint's text when cause is
	// CauseUntoleratedTaint.
	taint string
	// affinityToo: besides the taint, the pods' node selector or affinity
	// does not match the flavor either, so a toleration alone would not
	// open it.
	affinityToo bool
}

// newInel is an ineligibility with its reason as a catalog message.
func newInel(cause Cause, m i18n.Message) *ineligibility {
	return &ineligibility{cause: cause, reason: m.String(), msg: m}
}

// taintOnly reports a flavor that only an untolerated taint rules out: a
// toleration would open it.
func (i *ineligibility) taintOnly() bool {
	return i != nil && i.cause == CauseUntoleratedTaint && !i.affinityToo
}

// flavorEligibility checks a pod set against a ResourceFlavor as Kueue's
// flavor assigner does: untolerated NoSchedule/NoExecute taints, and the pod
// set's node selector and required node affinity restricted to the label
// keys that some flavor of the resource group uses. Kueue stops at the
// first check that fails; both are made here, so that a flavor ruled out
// only by its taint can be told from one the pods do not select at all.
func flavorEligibility(ps *kueue.PodSet, rf *kueue.ResourceFlavor, groupKeys map[string]bool) *ineligibility {
	if rf == nil {
		return newInel(CauseFlavorNotFound, msg("diagnose.inel.missing"))
	}
	aff := affinityMismatch(ps, rf, groupKeys)
	// As Kueue's flavor assigner: NoSchedule and NoExecute taints of the
	// flavor against the pod's and the flavor's tolerations.
	tols := append(append([]corev1.Toleration(nil), ps.Template.Spec.Tolerations...), rf.Spec.Tolerations...)
	taint, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), rf.Spec.NodeTaints, tols, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, true)
	if untolerated {
		in := newInel(CauseUntoleratedTaint, msg("diagnose.inel.taint", i18n.Verbatim(taintString(taint))))
		in.fix, in.taint = tolerationYAML(taint), taintString(taint)
		if aff != nil {
			in.affinityToo = true
			in.msg = msg("diagnose.inel.taintAndAffinity", in.msg, aff.msg)
			in.reason = in.msg.String()
		}
		return in
	}
	return aff
}

// affinityMismatch is the node selector / required node affinity half of
// flavorEligibility; nil when the pod set's selection matches the flavor.
func affinityMismatch(ps *kueue.PodSet, rf *kueue.ResourceFlavor, groupKeys map[string]bool) *ineligibility {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: rf.Spec.NodeLabels}}
	sel := map[string]string{}
	for k, v := range ps.Template.Spec.NodeSelector {
		if groupKeys[k] {
			sel[k] = v
		}
	}
	for _, k := range sortedKeys(sel) {
		if got, ok := rf.Spec.NodeLabels[k]; !ok || got != sel[k] {
			have := "<none>"
			if ok {
				have = got
			}
			in := newInel(CauseNodeAffinityMismatch, msg("diagnose.inel.selector", i18n.Name(k), i18n.Name(sel[k]), i18n.Name(k), i18n.Name(have)))
			in.fix = fmt.Sprintf("nodeSelector %s=%s", k, have)
			return in
		}
	}
	if aff := ps.Template.Spec.Affinity; aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := restrictTerms(aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, groupKeys)
		if len(terms) > 0 {
			ns, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: terms})
			if err != nil {
				return newInel(CauseNodeAffinityMismatch, msg("diagnose.inel.affinityInvalid", i18n.Verbatim(err.Error())))
			}
			if !ns.Match(node) {
				return newInel(CauseNodeAffinityMismatch, msg("diagnose.inel.affinity", i18n.Verbatim(labelsString(rf.Spec.NodeLabels))))
			}
		}
	}
	return nil
}

// restrictTerms keeps the expressions of each term whose key is in keys; a
// term left empty matches everything, so the whole selector then matches.
func restrictTerms(terms []corev1.NodeSelectorTerm, keys map[string]bool) []corev1.NodeSelectorTerm {
	var out []corev1.NodeSelectorTerm
	for _, t := range terms {
		var exprs []corev1.NodeSelectorRequirement
		for _, e := range t.MatchExpressions {
			if keys[e.Key] {
				exprs = append(exprs, e)
			}
		}
		if len(exprs) == 0 {
			return nil
		}
		out = append(out, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	}
	return out
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

func tolerationYAML(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf(`{"key":%q,"operator":"Exists","effect":%q}`, t.Key, t.Effect)
	}
	return fmt.Sprintf(`{"key":%q,"operator":"Equal","value":%q,"effect":%q}`, t.Key, t.Value, t.Effect)
}

func labelsString(l map[string]string) string {
	if len(l) == 0 {
		return "<none>"
	}
	parts := make([]string, 0, len(l))
	for _, k := range sortedKeys(l) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
