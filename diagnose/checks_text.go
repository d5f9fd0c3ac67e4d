package diagnose

import (
	"slices"
	"strconv"
	"strings"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/i18n"
)

// checkMsg is one admission check's state, for a detail: "admission check
// prov is Pending (handled by controller c): <its message>".
func (a *analysis) checkMsg(ac kueue.AdmissionCheckState) i18n.Message {
	var ctrl i18n.Message
	for _, obj := range a.s.AdmissionChecks {
		if obj.Name == string(ac.Name) && obj.Spec.ControllerName != "" {
			ctrl = msg("diagnose.check.controller", i18n.Name(obj.Spec.ControllerName))
		}
	}
	text := msg("diagnose.check.noMessage")
	if ac.Message != "" {
		text = msg("diagnose.check.message", i18n.Verbatim(ac.Message))
	}
	return msg("diagnose.check.state", i18n.Name(string(ac.Name)), i18n.Name(string(ac.State)), ctrl, text)
}

// semicolons joins check states (checkMsg) with "; " as a sentence, the
// first capitalized.
func semicolons(states []i18n.Arg) i18n.List {
	out := slices.Clone(states)
	if len(out) > 0 {
		if m, ok := out[0].(i18n.Message); ok && m.ID == "diagnose.check.state" {
			m.ID = "diagnose.check.state.first"
			out[0] = m
		}
	}
	return i18n.List{Items: out, Semicolons: true}
}

// checksMsg names the checks with their messages, for a headline:
// admission check prov-check ("capacity could not be provisioned").
func checksMsg(acs []kueue.AdmissionCheckState) i18n.List {
	parts := make([]i18n.Arg, 0, len(acs))
	for _, ac := range acs {
		if ac.Message != "" {
			parts = append(parts, msg("diagnose.check.quoted", i18n.Name(string(ac.Name)), i18n.Verbatim(strconv.Quote(strings.TrimSuffix(ac.Message, ".")))))
			continue
		}
		parts = append(parts, msg("diagnose.check.named", i18n.Name(string(ac.Name))))
	}
	return i18n.And(parts...)
}

// checkNamesMsg is "admission check a" or "admission checks a, b".
func checkNamesMsg(acs []kueue.AdmissionCheckState) i18n.Message {
	names := make([]string, 0, len(acs))
	for _, ac := range acs {
		names = append(names, string(ac.Name))
	}
	return msg("diagnose.check.names", i18n.Num(len(names)), nameList(names...))
}

// checksOwnerMsg names the checks with the controllers that run them, when
// the AdmissionCheck objects were read.
func (a *analysis) checksOwnerMsg(acs []kueue.AdmissionCheckState) i18n.Message {
	var ctrls []string
	for _, ac := range acs {
		for _, obj := range a.s.AdmissionChecks {
			if obj.Name == string(ac.Name) && obj.Spec.ControllerName != "" && !slices.Contains(ctrls, obj.Spec.ControllerName) {
				ctrls = append(ctrls, obj.Spec.ControllerName)
			}
		}
	}
	if len(ctrls) == 0 {
		return checkNamesMsg(acs)
	}
	return msg("diagnose.check.namesOwned", checkNamesMsg(acs), nameList(ctrls...))
}

// finalizersMsg is ", held by finalizer f" for an object being deleted;
// the zero Message without finalizers.
func finalizersMsg(fs []string) i18n.Message {
	if len(fs) == 0 {
		return i18n.Message{}
	}
	return msg("diagnose.heldByFinalizer", nameList(fs...))
}

// lqSuggestionMsg is " (LocalQueues in your namespace: a, b)", the zero
// Message when there is no other LocalQueue.
func lqSuggestionMsg(lqs []kueue.LocalQueue, current string) i18n.Message {
	var names []string
	for _, lq := range lqs {
		if lq.Name != current {
			names = append(names, lq.Name)
		}
	}
	if len(names) == 0 {
		return i18n.Message{}
	}
	slices.Sort(names)
	return msg("diagnose.lqSuggestion", nameList(names...))
}
