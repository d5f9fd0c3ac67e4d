package diagnose

import (
	"fmt"
	"time"
)

// Phrase is the estimate in a few words, relative to when it was made:
// "in 20-45 min, most likely 30 min", "likely now", "in 2 h or later",
// or "no estimate: <reason>".
func (e *Estimate) Phrase() string {
	if e == nil {
		return ""
	}
	if !e.Known() {
		return "no estimate: " + e.NoEstimate
	}
	likely := e.Likely.Sub(e.At)
	lo := likely
	if e.Earliest != nil {
		lo = e.Earliest.Sub(e.At)
	}
	if e.Latest == nil {
		if likely < time.Minute {
			return "likely soon, with no upper bound (a workload it waits for has no known end)"
		}
		return "likely in " + Span(likely) + " or later (a workload it waits for has no known end)"
	}
	hi := e.Latest.Sub(e.At)
	switch {
	case hi < time.Minute:
		return "likely now (it fits as soon as Kueue evaluates it)"
	case Span(lo) == Span(hi):
		return "likely in " + Span(likely)
	case lo < time.Minute && Span(likely) == Span(hi):
		return "within " + Span(hi)
	case lo < time.Minute:
		return fmt.Sprintf("within %s, most likely in %s", Span(hi), Span(likely))
	}
	return fmt.Sprintf("in %s, most likely in %s", SpanRange(lo, hi), Span(likely))
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
