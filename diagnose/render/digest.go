package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/i18n"
)

// WriteDigest renders a digest in format f to w, in English. JSON is the
// Digest's own contract: every pending workload appears under its verdict
// code in groups[].workloads.
func WriteDigest(w io.Writer, f Format, d *digest.Digest) error {
	return WriteDigestWith(w, f, d, Options{})
}

// WriteDigestWith is WriteDigest with the text and Markdown in o.Lang;
// JSON is the contract, the same in every language.
func WriteDigestWith(w io.Writer, f Format, d *digest.Digest, o Options) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d)
	case Markdown:
		_, err := io.WriteString(w, DigestMarkdownWith(d, o))
		return err
	default:
		_, err := io.WriteString(w, DigestTextWith(d, o))
		return err
	}
}

// Bar draws a usage percentage as ten cells, "▓▓▓▓▓▓░░░░ 60%"; over 100%
// (borrowing) the bar is full and the number says by how much. A negative
// percent (no nominal quota, or not readable) draws none.
func Bar(percent int) string { return BarIn(i18n.English, percent) }

// BarIn is Bar in language l.
func BarIn(l i18n.Lang, percent int) string {
	if percent < 0 {
		return tr(l, "render.digest.noNominal")
	}
	const width = 10
	filled := min(percent*width/100, width)
	if percent > 0 && filled == 0 {
		filled = 1
	}
	return strings.Repeat("▓", filled) + strings.Repeat("░", width-filled) + fmt.Sprintf(" %d%%", percent)
}

// Wait prints a wait in its two largest units: "45m", "3h 20m", "5h",
// "1d 18h", "2d".
func Wait(d time.Duration) string {
	d = d.Round(time.Minute)
	two := func(a int, ua string, b int, ub string) string {
		if b == 0 {
			return fmt.Sprintf("%d%s", a, ua)
		}
		return fmt.Sprintf("%d%s %d%s", a, ua, b, ub)
	}
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return two(int(d.Hours()), "h", int(d.Minutes())%60, "m")
	}
	d = d.Round(time.Hour)
	return two(int(d.Hours())/24, "d", int(d.Hours())%24, "h")
}

// WaitIn is Wait in language l: English keeps Wait's compact units, the
// other languages write their own ("3 h 20 min", "3時間20分", "3 小时 20
// 分钟"; i18n.FormatDuration).
func WaitIn(l i18n.Lang, d time.Duration) string {
	if l == i18n.English {
		return Wait(d)
	}
	return i18n.FormatDuration(l, i18n.Dur(d))
}

// Signed prints a change with its sign: "+3", "-2", "0".
func Signed(n int) string {
	if n > 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprint(n)
}

// DigestTime is a digest's time as its renderings print it: "Mon Jan 2
// 2006 15:04 MST" in English (long) or "Jan 2 15:04 MST" (short), an
// ISO date in the other languages, always in UTC.
func DigestTime(l i18n.Lang, t time.Time, long bool) string {
	t = t.UTC()
	switch {
	case l != i18n.English:
		return t.Format("2006-01-02 15:04 MST")
	case long:
		return t.Format("Mon Jan 2 2006 15:04 MST")
	}
	return t.Format("Jan 2 15:04 MST")
}

// Period ends a sentence in l: "." or "。".
func Period(l i18n.Lang) string {
	if l == i18n.Japanese || l == i18n.Chinese {
		return "。"
	}
	return "."
}

// Whos names who acts on an item, for people reading a shared digest: the
// job's owner or the platform team.
func Whos(who []diagnose.Who) string { return WhosIn(i18n.English, who) }

// WhosIn is Whos in language l.
func WhosIn(l i18n.Lang, who []diagnose.Who) string {
	var names []string
	for _, w := range who {
		switch w {
		case diagnose.WhoYou:
			names = append(names, tr(l, "render.digest.who.owner"))
		case diagnose.WhoPlatform:
			names = append(names, tr(l, "render.digest.who.platform"))
		default:
			names = append(names, string(w))
		}
	}
	if len(names) == 0 {
		return tr(l, "render.digest.who.platform")
	}
	return strings.Join(names, listSep(l))
}

// listSep joins names: ", " or "、".
func listSep(l i18n.Lang) string {
	if l == i18n.Japanese || l == i18n.Chinese {
		return "、"
	}
	return ", "
}

// TotalsLine is the digest's headline figures in one sentence.
func TotalsLine(d *digest.Digest) string { return TotalsLineIn(i18n.English, d) }

// TotalsLineIn is TotalsLine in language l.
func TotalsLineIn(l i18n.Lang, d *digest.Digest) string {
	t := d.Totals
	s := tr(l, "render.digest.totals.pending", i18n.Num(t.Pending))
	if t.Reserved > 0 {
		s += tr(l, "render.digest.totals.reserved", i18n.Num(t.Reserved))
	}
	s += tr(l, "render.digest.totals.rest", i18n.Num(t.Admitted), i18n.Num(t.Finished), i18n.Verbatim(DigestTime(l, d.Since, false)),
		i18n.Num(t.LongWaits), i18n.Verbatim(WaitIn(l, d.LongWait)), i18n.Num(t.NeedsAction))
	if t.Stuck > 0 {
		s += tr(l, "render.digest.totals.stuck", i18n.Num(t.Stuck))
	}
	return s
}

// StuckTitle heads the list of workloads stuck after admission.
func StuckTitle(d *digest.Digest) string { return StuckTitleIn(i18n.English, d) }

// StuckTitleIn is StuckTitle in language l.
func StuckTitleIn(l i18n.Lang, d *digest.Digest) string {
	return tr(l, "render.digest.stuck.title", i18n.Verbatim(WaitIn(l, d.StuckAfter)))
}

func itemRef(it *digest.Item) string {
	return it.Namespace + "/" + strings.ToLower(it.Kind) + "/" + it.Name
}

// stuckLine is one admitted workload whose pods do not run: reference, how
// long it has held its quota, verdict and cause.
func stuckLine(l i18n.Lang, it *digest.Item) string {
	return tr(l, "render.digest.stuck.line", i18n.Verbatim(itemRef(it)), i18n.Verbatim(WaitIn(l, it.Wait)), i18n.Verbatim(it.Verdict()))
}

// TrendLine is the change since the previous digest, or "" for the first.
func TrendLine(d *digest.Digest) string { return TrendLineIn(i18n.English, d) }

// TrendLineIn is TrendLine in language l.
func TrendLineIn(l i18n.Lang, d *digest.Digest) string {
	t := d.Trend
	if t == nil {
		return ""
	}
	v := func(n int) i18n.Arg { return i18n.Verbatim(Signed(n)) }
	s := tr(l, "render.digest.trend", i18n.Verbatim(DigestTime(l, t.Since, false)), v(t.Pending), v(t.Admitted), v(t.Finished), v(t.LongWaits), v(t.NeedsAction))
	if t.Stuck != 0 {
		s += tr(l, "render.digest.trend.stuck", v(t.Stuck))
	}
	var codes []i18n.Arg
	for _, c := range t.ByCode {
		codes = append(codes, i18n.Verbatim(fmt.Sprintf("%s %s", c.Code, Signed(c.Delta))))
	}
	if len(codes) > 0 {
		s += tr(l, "render.digest.trend.codes", i18n.Commas(codes...))
	}
	return s
}

// QueueName names a queue line: "ClusterQueue gpu" or "team-a/user-queue".
func QueueName(q *diagnose.QueueSummary) string {
	if q.Kind == diagnose.QueueKindCluster {
		return "ClusterQueue " + q.Name
	}
	return q.Namespace + "/" + q.Name
}

// queueUsage is a queue's usage, one "cpu 51/64 ▓▓▓▓▓▓▓▓░░ 80%" per flavor
// and resource.
func queueUsage(l i18n.Lang, q *diagnose.QueueSummary, sep string) string {
	var parts []string
	for _, u := range q.Usage {
		name := string(u.Resource)
		if flavorCount(q) > 1 {
			name = u.Flavor + "/" + name
		}
		if q.NominalKnown && u.Percent >= 0 {
			parts = append(parts, fmt.Sprintf("%s %s/%s %s", name, diagnose.FormatQuantity(u.Used), diagnose.FormatQuantity(u.Nominal), BarIn(l, u.Percent)))
		} else {
			parts = append(parts, tr(l, "render.digest.used", i18n.Name(name), i18n.Qty(diagnose.FormatQuantity(u.Used))))
		}
	}
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, sep)
}

func flavorCount(q *diagnose.QueueSummary) int {
	seen := map[string]bool{}
	for _, u := range q.Usage {
		seen[u.Flavor] = true
	}
	return len(seen)
}

// itemLine is one workload: reference, wait, verdict and cause, and when
// it is likely admitted.
func itemLine(l i18n.Lang, it *digest.Item) string {
	s := tr(l, "render.digest.item", i18n.Verbatim(itemRef(it)), i18n.Verbatim(WaitIn(l, it.Wait)), i18n.Verbatim(it.Verdict()))
	if it.Estimate.Known() {
		s += tr(l, "render.digest.item.starts", i18n.Verbatim(EstimateShortIn(l, it.Estimate)))
	}
	return s
}

// EstimateShort is an estimate in a table cell: "in 20-45m", "now",
// "in 3h or later", "no estimate".
func EstimateShort(e *diagnose.Estimate) string { return EstimateShortIn(i18n.English, e) }

// EstimateShortIn is EstimateShort in language l.
func EstimateShortIn(l i18n.Lang, e *diagnose.Estimate) string {
	if !e.Known() {
		return tr(l, "render.digest.est.none")
	}
	likely := e.Likely.Sub(e.At)
	lo := likely
	if e.Earliest != nil {
		lo = e.Earliest.Sub(e.At)
	}
	if e.Latest == nil {
		return tr(l, "render.digest.est.orLater", i18n.Verbatim(WaitIn(l, likely)))
	}
	hi := e.Latest.Sub(e.At)
	switch {
	case hi < time.Minute:
		return tr(l, "render.digest.est.now")
	case Wait(lo) == Wait(hi):
		return tr(l, "render.digest.est.in", i18n.Verbatim(WaitIn(l, likely)))
	}
	span := Wait(lo) + "-" + Wait(hi)
	if l != i18n.English {
		span = i18n.FormatDurationRange(l, i18n.Dur(lo), i18n.Dur(hi))
	}
	return tr(l, "render.digest.est.in", i18n.Verbatim(span))
}

// DrainCell is when a queue is likely drained: "in 2h", "no estimate for
// 3", or <none> when nothing of it is pending or estimated.
func DrainCell(d *digest.Digest, q *digest.Queue) string { return DrainCellIn(i18n.English, d, q) }

// DrainCellIn is DrainCell in language l.
func DrainCellIn(l i18n.Lang, d *digest.Digest, q *digest.Queue) string {
	dr := q.Drain
	switch {
	case dr == nil || q.Pending == 0:
		return none
	case dr.NoEstimate > 0:
		return tr(l, "render.digest.drain.noEstimate", i18n.Num(dr.NoEstimate))
	case dr.Likely == nil:
		return none
	}
	return tr(l, "render.digest.est.in", i18n.Verbatim(WaitIn(l, max(0, dr.Likely.Sub(d.Now)))))
}

// NotDrainingTitle heads the queues that will not drain today.
const NotDrainingTitle = "Will not drain today (their pending workloads are not all likely admitted by midnight)"

// NotDrainingTitleIn is NotDrainingTitle in language l.
func NotDrainingTitleIn(l i18n.Lang) string { return tr(l, "render.digest.notDraining") }

// notDrainingLine says why one queue will not drain today.
func notDrainingLine(l i18n.Lang, d *digest.Digest, q *digest.Queue) string {
	dr := q.Drain
	name := i18n.Verbatim(QueueName(&q.QueueSummary))
	if dr.NoEstimate > 0 {
		return tr(l, "render.digest.notDraining.noEstimate", name, i18n.Num(dr.NoEstimate), i18n.Num(q.Pending))
	}
	return tr(l, "render.digest.notDraining.last", name, i18n.Num(dr.Estimated), i18n.Verbatim(WaitIn(l, max(0, dr.Likely.Sub(d.Now)))))
}

// NotDraining are the digest's queues that will not drain today.
func NotDraining(d *digest.Digest) []*digest.Queue {
	var out []*digest.Queue
	for i := range d.Queues {
		if q := &d.Queues[i]; q.Drain != nil && !q.Drain.Today && q.Pending > 0 {
			out = append(out, q)
		}
	}
	return out
}

// causes lists a group's causes: "QuotaInUse 20, BorrowingLimited 5".
func causes(g *digest.Group) string {
	var parts []string
	for _, c := range g.Causes {
		if c.Cause != "" {
			parts = append(parts, fmt.Sprintf("%s %d", c.Cause, c.Count))
		}
	}
	return strings.Join(parts, ", ")
}

// RemedyIn is an item's first remedy in language l: its message when the
// diagnosis gave one, else its English summary.
func RemedyIn(l i18n.Lang, it *digest.Item) string {
	if !it.RemedyMsg.IsZero() {
		return it.RemedyMsg.In(l)
	}
	return it.Remedy
}

// DigestText renders the digest for a terminal, in English.
func DigestText(d *digest.Digest) string { return DigestTextWith(d, Options{}) }

// DigestTextWith renders the digest for a terminal in o.Lang.
func DigestTextWith(d *digest.Digest, o Options) string {
	l := o.Lang
	var b strings.Builder
	b.WriteString(tr(l, "render.digest.title", i18n.Verbatim(d.Name), i18n.Verbatim(DigestTime(l, d.Now, true))) + "\n")
	if d.Cluster != "" {
		fmt.Fprintf(&b, "%s %s\n", label(l, "render.label.cluster"), d.Cluster)
	}
	b.WriteString(wrapIn(l, TotalsLineIn(l, d)+Period(l), 78, "") + "\n")
	if tl := TrendLineIn(l, d); tl != "" {
		b.WriteString(wrapIn(l, tl+Period(l), 78, "") + "\n")
	}
	if len(d.Queues) > 0 {
		b.WriteString("\n" + label(l, "render.digest.queues") + "\n")
		tw := newTable(&b)
		fmt.Fprintln(tw, tr(l, "render.digest.table"))
		for i := range d.Queues {
			q := &d.Queues[i]
			oldest := none
			if q.Pending > 0 {
				oldest = WaitIn(l, q.OldestWait)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\n", QueueName(&q.QueueSummary), q.State, q.Pending, q.Admitted, oldest, q.LongWaits, DrainCellIn(l, d, q), queueUsage(l, &q.QueueSummary, "; "))
		}
		_ = tw.Flush()
	}
	if nd := NotDraining(d); len(nd) > 0 {
		b.WriteString("\n" + NotDrainingTitleIn(l) + colon(l) + "\n")
		for _, q := range nd {
			fmt.Fprintf(&b, "  %s\n", notDrainingLine(l, d, q))
		}
	}
	if len(d.Groups) > 0 {
		b.WriteString("\n" + label(l, "render.digest.byVerdict") + "\n")
		for i := range d.Groups {
			g := &d.Groups[i]
			fmt.Fprintf(&b, "  %s: %d", g.Code, g.Count)
			if c := causes(g); c != "" {
				fmt.Fprintf(&b, " (%s)", c)
			}
			b.WriteString("\n")
			for j, it := range g.Workloads {
				if j == d.TopN {
					fmt.Fprintf(&b, "    ... %s\n", tr(l, "render.digest.moreJSON", i18n.Num(len(g.Workloads)-j)))
					break
				}
				fmt.Fprintf(&b, "    %s\n", itemLine(l, it))
			}
		}
	} else {
		b.WriteString("\n" + tr(l, "render.digest.nothing") + "\n")
	}
	actionList(&b, l, tr(l, "render.digest.needsAction"), d.NeedsAction, d.TopN, itemLine)
	actionList(&b, l, StuckTitleIn(l, d), d.Stuck, d.TopN, stuckLine)
	return b.String()
}

// actionList writes a titled list of the workloads someone has to act on,
// the first topN with who acts and the first remedy.
func actionList(b *strings.Builder, l i18n.Lang, title string, items []*digest.Item, topN int, line func(i18n.Lang, *digest.Item) string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n" + title + colon(l) + "\n")
	for j, it := range items {
		if j == topN {
			fmt.Fprintf(b, "  ... %s\n", tr(l, "render.digest.more", i18n.Num(len(items)-j)))
			break
		}
		fmt.Fprintf(b, "  %s  -> %s\n", line(l, it), WhosIn(l, it.Who))
		if rem := RemedyIn(l, it); rem != "" {
			fmt.Fprintf(b, "    %s\n", wrapIn(l, clip(l, rem), 74, "    "))
		}
	}
}

// wrapIn is wrapL.
func wrapIn(l i18n.Lang, s string, width int, indent string) string {
	return wrapL(l, s, width, indent)
}

// clip is oneLine in language l: English is cut as oneLine cuts it; the
// other languages on a rune boundary, never inside a character.
func clip(l i18n.Lang, s string) string {
	if l == i18n.English {
		return oneLine(s)
	}
	r := []rune(strings.ReplaceAll(s, "\n", " "))
	if len(r) > 240 {
		return string(r[:237]) + "..."
	}
	return string(r)
}

// DigestMarkdown renders the digest as GitHub-flavoured Markdown, in
// English.
func DigestMarkdown(d *digest.Digest) string { return DigestMarkdownWith(d, Options{}) }

// DigestMarkdownWith renders the digest as Markdown in o.Lang.
func DigestMarkdownWith(d *digest.Digest, o Options) string {
	l := o.Lang
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", tr(l, "render.digest.title", i18n.Verbatim(mdEscape(d.Name)), i18n.Verbatim(DigestTime(l, d.Now, true))))
	if d.Cluster != "" {
		fmt.Fprintf(&b, "**%s** `%s`\n\n", tr(l, "render.label.cluster"), d.Cluster)
	}
	fmt.Fprintf(&b, "%s%s\n\n", mdEscape(TotalsLineIn(l, d)), Period(l))
	if tl := TrendLineIn(l, d); tl != "" {
		fmt.Fprintf(&b, "%s%s\n\n", mdEscape(tl), Period(l))
	}
	if len(d.Queues) > 0 {
		b.WriteString(tr(l, "render.digest.tableMd") + "\n|---|---|---:|---:|---:|---:|---|---|\n")
		for i := range d.Queues {
			q := &d.Queues[i]
			oldest := none
			if q.Pending > 0 {
				oldest = WaitIn(l, q.OldestWait)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d | %s | %s |\n", mdEscape(QueueName(&q.QueueSummary)), q.State, q.Pending, q.Admitted,
				mdEscape(oldest), q.LongWaits, mdEscape(DrainCellIn(l, d, q)), mdEscape(queueUsage(l, &q.QueueSummary, "<br>")))
		}
		b.WriteString("\n")
	}
	if nd := NotDraining(d); len(nd) > 0 {
		b.WriteString("**" + mdEscape(NotDrainingTitleIn(l)) + "**\n\n")
		for _, q := range nd {
			fmt.Fprintf(&b, "- %s\n", mdEscape(notDrainingLine(l, d, q)))
		}
		b.WriteString("\n")
	}
	if len(d.Groups) > 0 {
		b.WriteString("**" + tr(l, "render.digest.byVerdict") + "**\n\n")
		for i := range d.Groups {
			g := &d.Groups[i]
			fmt.Fprintf(&b, "- `%s`: %d", g.Code, g.Count)
			if c := causes(g); c != "" {
				fmt.Fprintf(&b, " (%s)", c)
			}
			b.WriteString("\n")
			for j, it := range g.Workloads {
				if j == d.TopN {
					fmt.Fprintf(&b, "  - … %s\n", tr(l, "render.digest.more", i18n.Num(len(g.Workloads)-j)))
					break
				}
				b.WriteString("  - " + tr(l, "render.digest.md.item", i18n.Verbatim(itemRef(it)), i18n.Verbatim(WaitIn(l, it.Wait))))
				if it.Estimate.Known() {
					b.WriteString(tr(l, "render.digest.md.starts", i18n.Verbatim(mdEscape(EstimateShortIn(l, it.Estimate)))))
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
	if len(d.NeedsAction) > 0 {
		b.WriteString(tr(l, "render.digest.md.needsAction") + "\n\n")
		for j, it := range d.NeedsAction {
			if j == d.TopN {
				fmt.Fprintf(&b, "- … %s\n", tr(l, "render.digest.more", i18n.Num(len(d.NeedsAction)-j)))
				break
			}
			fmt.Fprintf(&b, "- %s\n", tr(l, "render.digest.md.needs", i18n.Verbatim(itemRef(it)), i18n.Verbatim(string(it.Code)),
				i18n.Verbatim(WhosIn(l, it.Who)), i18n.Verbatim(mdEscape(clip(l, RemedyIn(l, it))))))
		}
		b.WriteString("\n")
	}
	if len(d.Stuck) > 0 {
		fmt.Fprintf(&b, "**%s**\n\n", mdEscape(StuckTitleIn(l, d)))
		for j, it := range d.Stuck {
			if j == d.TopN {
				fmt.Fprintf(&b, "- … %s\n", tr(l, "render.digest.more", i18n.Num(len(d.Stuck)-j)))
				break
			}
			fmt.Fprintf(&b, "- %s\n", tr(l, "render.digest.md.stuck", i18n.Verbatim(itemRef(it)), i18n.Verbatim(WaitIn(l, it.Wait)), i18n.Verbatim(it.Verdict()),
				i18n.Verbatim(WhosIn(l, it.Who)), i18n.Verbatim(mdEscape(clip(l, RemedyIn(l, it))))))
		}
		b.WriteString("\n")
	}
	return b.String()
}
