package diagnose

import (
	"fmt"
	"time"

	"github.com/kueuebot/kueuebot/i18n"
)

// Phrase is the estimate in a few words, relative to when it was made:
// "in 20-45 min, most likely 30 min", "likely now", "in 2 h or later",
// or "no estimate: <reason>".
func (e *Estimate) Phrase() string {
	if e == nil {
		return ""
	}
	return e.phrase().String()
}

// phrase is Phrase as a catalog message.
func (e *Estimate) phrase() i18n.Message {
	if !e.Known() {
		why := e.NoEstimateMsg
		if why.IsZero() {
			why = msg("diagnose.quotedPlain", i18n.Verbatim(e.NoEstimate))
		}
		return msg("diagnose.est.phrase.none", why)
	}
	likely := e.Likely.Sub(e.At)
	lo := likely
	if e.Earliest != nil {
		lo = e.Earliest.Sub(e.At)
	}
	if e.Latest == nil {
		if likely < time.Minute {
			return msg("diagnose.est.phrase.soonOpen")
		}
		return msg("diagnose.est.phrase.laterOpen", i18n.Dur(likely))
	}
	hi := e.Latest.Sub(e.At)
	switch {
	case hi < time.Minute:
		return msg("diagnose.est.phrase.now")
	case Span(lo) == Span(hi):
		return msg("diagnose.est.phrase.in", i18n.Dur(likely))
	case lo < time.Minute && Span(likely) == Span(hi):
		return msg("diagnose.est.phrase.within", i18n.Dur(hi))
	case lo < time.Minute:
		return msg("diagnose.est.phrase.withinMost", i18n.Dur(hi), i18n.Dur(likely))
	}
	return msg("diagnose.est.phrase.range", i18n.DurRange{Lo: i18n.Dur(lo), Hi: i18n.Dur(hi)}, i18n.Dur(likely))
}

// EstimateUnread is no estimate because the Workloads of clusterQueue
// could not be read (why: the read's failure, a phrase such as "you may
// not list them").
func EstimateUnread(at time.Time, clusterQueue string, why i18n.Message) *Estimate {
	e := &Estimate{At: at}
	e.none(msg("diagnose.est.none.unread", i18n.Obj("ClusterQueue", "", clusterQueue), why))
	return e
}

// EstimateUnreadable is no estimate because the reader cannot read the
// Workloads of the job's queue at all.
func EstimateUnreadable(at time.Time) *Estimate {
	e := &Estimate{At: at}
	e.none(msg("diagnose.est.none.unreadable"))
	return e
}

// Span is a duration as an estimate shows it: "under a minute", "12 min",
// "1 h 20 min", "2 d 3 h".
func Span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int((d+30*time.Second)/time.Minute))
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	d = d.Round(time.Hour)
	days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if h == 0 {
		return fmt.Sprintf("%d d", days)
	}
	return fmt.Sprintf("%d d %d h", days, h)
}

// SpanRange is a range of durations: "20-45 min" when both are minutes,
// else "50 min-2 h".
func SpanRange(lo, hi time.Duration) string {
	if lo >= time.Minute && hi < time.Hour {
		return fmt.Sprintf("%d-%s", int((lo+30*time.Second)/time.Minute), Span(hi))
	}
	return Span(lo) + "-" + Span(hi)
}
