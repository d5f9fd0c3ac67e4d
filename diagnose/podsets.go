package diagnose

import (
	"slices"

	"github.com/kueuebot/kueuebot/i18n"
)

// Multi-pod-set Workloads (JobSet, RayJob, PyTorchJob, pod groups, ...):
// the answer names the pod set that keeps the Workload out, and says which
// ones fit, because Kueue admits all pod sets or none.

// multiPodSet reports a Workload with more than one pod set.
func (a *analysis) multiPodSet() bool {
	return a.quota != nil && len(a.quota.podSets) > 1
}

// podSetsMsg is "pod set workers" or "pod sets driver and workers"; the
// zero Message for no names.
func podSetsMsg(names []string) i18n.Message {
	switch len(names) {
	case 0:
		return i18n.Message{}
	case 1:
		return msg("diagnose.podSet", i18n.Name(names[0]))
	}
	return msg("diagnose.podSets", i18n.And(i18n.Names(names...)...))
}

// noMatchingFlavor answers a Workload one of whose pod sets no flavor of
// the ClusterQueue can take (taints, node selection), or a ClusterQueue
// that names a flavor that does not exist.
func (a *analysis) noMatchingFlavor() bool {
	cq := a.s.ClusterQueue
	blocked := a.quota.blockedPodSets()
	if len(blocked) == 0 {
		return false
	}
	var reasons []i18n.Arg
	for _, b := range blocked {
		reasons = append(reasons, b.reasonMsgs...)
	}
	semi := func(items []i18n.Arg) i18n.List { return i18n.List{Items: items, Semicolons: true} }
	first := &blocked[0]
	if first.cause == CauseFlavorNotFound {
		return a.setM(CodeMisconfigured, CauseFlavorNotFound, msg("diagnose.flavorMissing.headline.short", cqArg(cq.Name)), msg("diagnose.inel.reasons", semi(reasons)))
	}
	a.flavorRemedies(first.cause, first)
	a.misnamedPodSet(blocked)
	if !a.multiPodSet() {
		detail := msg("diagnose.concat", msg("diagnose.noFlavor.everyRuledOut", semi(reasons)), openMsg(first))
		return a.setM(CodeNoMatchingFlavor, first.cause, msg("diagnose.noFlavor.headline", cqArg(cq.Name), a.jobArg()), detail)
	}
	var names []string
	var detail []i18n.Message
	for i := range blocked {
		b := &blocked[i]
		names = append(names, b.name)
		detail = append(detail, msg("diagnose.noFlavor.podSet", i18n.Name(b.name), semi(b.reasonMsgs), openMsg(b)))
	}
	detail = append(detail, a.othersFitMsg(names))
	return a.setM(CodeNoMatchingFlavor, first.cause, msg("diagnose.noFlavor.headline.podSets", cqArg(cq.Name), podSetsMsg(names), a.jobArg()), i18n.Join(detail...))
}

// openMsg says which flavor a toleration would open, when other flavors
// are ruled out by the pods' node selection.
func openMsg(b *blockedPodSet) i18n.Message {
	if b.open == nil || len(b.reasons) < 2 {
		return i18n.Message{}
	}
	return msg("diagnose.noFlavor.open", i18n.Name(b.open.flavor), i18n.Verbatim(b.open.inel.taint))
}

// othersFitMsg is "Pod set driver fits (flavor on-demand); Kueue admits
// all pod sets of a job or none." for the pod sets of a multi-pod-set
// Workload that are not named as blocking;
// the zero Message when every pod set blocks.
func (a *analysis) othersFitMsg(blocking []string) i18n.Message {
	var parts []i18n.Arg
	for _, p := range a.quota.podSets {
		if slices.Contains(blocking, p.req.name) || p.level == fitIneligible {
			continue
		}
		var flavors []string
		for _, f := range p.chosen() {
			if !slices.Contains(flavors, f.flavor) {
				flavors = append(flavors, f.flavor)
			}
		}
		state := msg("diagnose.podSetState.fitsNow")
		switch p.level {
		case fitLater:
			state = msg("diagnose.podSetState.fitsLater")
		case fitNever:
			state = msg("diagnose.podSetState.fitsNever")
		}
		var fl i18n.Message
		if len(flavors) > 0 {
			fl = msg("diagnose.podSetState.flavor", nameList(flavors...))
		}
		id := i18n.ID("diagnose.podSetState")
		if len(parts) == 0 {
			id = "diagnose.podSetState.first"
		}
		parts = append(parts, msg(id, i18n.Name(p.req.name), state, fl))
	}
	if len(parts) == 0 {
		return i18n.Message{}
	}
	return msg("diagnose.othersFit", i18n.List{Items: parts, Semicolons: true})
}

// misnamedPodSet notes when Kueue's message names a pod set that, by the
// objects, some flavor can take: Kueue resumes its flavor search where its
// last attempt stopped, so its message may name a pod set that fits.
func (a *analysis) misnamedPodSet(blocked []blockedPodSet) {
	if !a.multiPodSet() {
		return
	}
	var named []string
	for _, r := range a.msg.Reasons {
		if r.PodSet != "" && !slices.Contains(named, r.PodSet) {
			named = append(named, r.PodSet)
		}
	}
	for _, n := range named {
		if slices.ContainsFunc(blocked, func(b blockedPodSet) bool { return b.name == n }) {
			continue
		}
		var names []string
		for _, b := range blocked {
			names = append(names, b.name)
		}
		a.findingM("MessageNamesOtherPodSet", SeverityInfo, msg("diagnose.msgNamesOtherPodSet", i18n.Name(n), podSetsMsg(names)))
		return
	}
}
