package diagnose

import (
	"strings"

	"github.com/kueuebot/kueuebot/i18n"
)

// HeadlineIn is the headline in l; the English Headline when it has no
// catalog message.
func (v Verdict) HeadlineIn(l i18n.Lang) string { return textIn(l, v.HeadlineMsg, v.Headline) }

// DetailIn is the detail in l; the English Detail when it has no catalog
// message.
func (v Verdict) DetailIn(l i18n.Lang) string { return textIn(l, v.DetailMsg, v.Detail) }

// MessageIn is the finding's message in l.
func (f Finding) MessageIn(l i18n.Lang) string { return textIn(l, f.Msg, f.Message) }

// SummaryIn is the remedy's summary in l.
func (r Remedy) SummaryIn(l i18n.Lang) string { return textIn(l, r.SummaryMsg, r.Summary) }

// ErrorIn is why the worker's diagnosis is missing, in l; the English
// Error when it has no catalog message.
func (w WorkerReport) ErrorIn(l i18n.Lang) string { return textIn(l, w.ErrorMsg, w.Error) }

// ErrorIn is why the cluster could not be searched, in l; the English
// Error when it has no catalog message.
func (c ClusterLook) ErrorIn(l i18n.Lang) string { return textIn(l, c.ErrorMsg, c.Error) }

func textIn(l i18n.Lang, m i18n.Message, english string) string {
	if m.IsZero() {
		return english
	}
	return m.In(l)
}

// msg builds a catalog message; the catalog entries of this package are in
// catalog.go.
func msg(id i18n.ID, args ...i18n.Arg) i18n.Message { return i18n.M(id, args...) }

// PhraseIn is Phrase in l.
func (e *Estimate) PhraseIn(l i18n.Lang) string {
	if e == nil {
		return ""
	}
	return e.phrase().In(l)
}

// BasisIn is Basis in l.
func (e *Estimate) BasisIn(l i18n.Lang) string {
	if e == nil {
		return ""
	}
	return textIn(l, e.BasisMsg, e.Basis)
}

// setM sets the verdict from catalog messages; Headline and Detail are
// their English.
func (a *analysis) setM(code Code, cause Cause, headline, detail i18n.Message) bool {
	a.r.Verdict = Verdict{Stage: StageOf(code), Code: code, Cause: cause,
		Headline: headline.String(), Detail: detail.String(), HeadlineMsg: headline, DetailMsg: detail}
	return true
}

// findingM adds a finding from a catalog message.
func (a *analysis) findingM(code string, sev Severity, m i18n.Message) {
	if a.s.Shared.brief() {
		return
	}
	a.r.Findings = append(a.r.Findings, Finding{Code: code, Severity: sev, Message: m.String(), Msg: m})
}

// remedyM adds a remedy from a catalog message.
func (a *analysis) remedyM(code string, who Who, command string, m i18n.Message) {
	a.r.Remedies = append(a.r.Remedies, Remedy{Code: code, Who: who, Command: command, Summary: m.String(), SummaryMsg: m})
}

// jobArg is the job as a message argument: "job/train-7", as jobRef.
func (a *analysis) jobArg() i18n.Object {
	kind := strings.ToLower(a.r.Target.Kind)
	if kind == "" {
		kind = "job"
	}
	return i18n.Ref(kind, a.ns, a.r.Target.Name)
}

// cqArg, lqArg, wlArg and nsArg name a ClusterQueue, a LocalQueue (of the
// job's namespace), a Workload and a Namespace.
func cqArg(name string) i18n.Object               { return i18n.Obj("ClusterQueue", "", name) }
func (a *analysis) lqArg(name string) i18n.Object { return i18n.Obj("LocalQueue", a.ns, name) }
func (a *analysis) wlArg(name string) i18n.Object { return i18n.Obj("Workload", a.ns, name) }
func nsArg(name string) i18n.Object               { return i18n.Obj("Namespace", "", name) }

// quoted is a message Kueue or Kubernetes wrote, shown as it is (with a
// label saying whose words they are in the other languages).
func quoted(s string) i18n.Message { return msg("diagnose.quoted", i18n.Verbatim(s)) }

// nameList is a comma-joined list of names.
func nameList(ss ...string) i18n.List { return i18n.Commas(i18n.Names(ss...)...) }

// Argument kinds, short, for the catalog files.
const (
	kO   = i18n.KindObject
	kN   = i18n.KindName
	kQ   = i18n.KindQty
	kNum = i18n.KindNum
	kD   = i18n.KindDur
	kV   = i18n.KindVerbatim
	kL   = i18n.KindList
	kM   = i18n.KindMsg
)

// e and k are i18n.E and i18n.Kinds, short for the catalog files: e is a
// catalog entry (its ID, argument kinds and texts), k lists argument kinds.
var e, k = i18n.E, i18n.Kinds

var _ = i18n.Register(
	e("diagnose.quoted", k(kV), "%[1]s", "Message d’origine : %[1]s", "原文：%[1]s", "原文：%[1]s"),
)

// opt is e for an entry whose translations may leave argument n out (a
// count English needs for its plural, Japanese and Chinese do not).
func opt(n int, id i18n.ID, args []i18n.Kind, en, fr, ja, zh string) i18n.Entry {
	x := e(id, args, en, fr, ja, zh)
	x.Optional = []int{n}
	return x
}
