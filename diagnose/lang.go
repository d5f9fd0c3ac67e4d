package diagnose

import "github.com/kueuebot/kueuebot/i18n"

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
	return e.Phrase()
}

// BasisIn is Basis in l.
func (e *Estimate) BasisIn(l i18n.Lang) string {
	if e == nil {
		return ""
	}
	return e.Basis
}
