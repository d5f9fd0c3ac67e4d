package i18n

import (
	"strconv"
	"time"
)

// FormatNum is n with the language's digit grouping: "1,234" (en, ja, zh),
// "1 234" (fr, with a no-break space).
func FormatNum(l Lang, n int64) string {
	if n > -1000 && n < 1000 {
		return strconv.FormatInt(n, 10)
	}
	return printer(l).Sprint(n)
}

type units struct{ under, min, hour, day, sep string }

var durUnits = [...]units{
	English:  {"under a minute", " min", " h", " d", " "},
	French:   {"moins d’une minute", " min", " h", " j", " "},
	Japanese: {"1分未満", "分", "時間", "日", ""},
	Chinese:  {"不到 1 分钟", " 分钟", " 小时", " 天", " "},
}

// FormatDuration is a duration as an answer shows it, rounded to what
// matters: under a minute; minutes below an hour ("12 min"); hours and
// minutes below a day ("1 h 20 min"); days and hours beyond ("2 d 3 h").
// Japanese writes "1時間20分", Chinese "1 小时 20 分钟", French "2 j 3 h".
// A negative duration is formatted as zero.
func FormatDuration(l Lang, d Dur) string {
	u := durUnits[English]
	if int(l) < len(durUnits) {
		u = durUnits[l]
	}
	t := time.Duration(d)
	switch {
	case t < time.Minute:
		return u.under
	case t < time.Hour:
		return strconv.Itoa(int((t+30*time.Second)/time.Minute)) + u.min
	case t < 24*time.Hour:
		t = t.Round(time.Minute)
		h, m := int(t/time.Hour), int(t%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + u.hour
		}
		return strconv.Itoa(h) + u.hour + u.sep + strconv.Itoa(m) + u.min
	}
	t = t.Round(time.Hour)
	days, h := int(t/(24*time.Hour)), int(t%(24*time.Hour)/time.Hour)
	if h == 0 {
		return strconv.Itoa(days) + u.day
	}
	return strconv.Itoa(days) + u.day + u.sep + strconv.Itoa(h) + u.hour
}

// FormatDurationRange is a range of durations: "20-45 min" when both are
// whole minutes below an hour (ja "20～45分", zh "20-45 分钟"), else the
// two durations joined with a dash ("50 min-2 h").
func FormatDurationRange(l Lang, lo, hi Dur) string {
	dash := "-"
	if l == Japanese {
		dash = "～"
	}
	if time.Duration(lo) >= time.Minute && time.Duration(hi) < time.Hour {
		return strconv.Itoa(int((time.Duration(lo)+30*time.Second)/time.Minute)) + dash + FormatDuration(l, hi)
	}
	return FormatDuration(l, lo) + dash + FormatDuration(l, hi)
}

// DurRange is a range of durations as an argument: it renders as
// FormatDurationRange does.
type DurRange struct{ Lo, Hi Dur }

// ArgKind implements Arg.
func (DurRange) ArgKind() Kind { return KindDur }
