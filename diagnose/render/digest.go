package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/i18n"
)

// WriteDigest renders a digest in format f to w. JSON is the Digest's own
// contract: every pending workload appears under its verdict code in
// groups[].workloads.
func WriteDigest(w io.Writer, f Format, d *digest.Digest) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d)
	case Markdown:
		_, err := io.WriteString(w, DigestMarkdown(d))
		return err
	default:
		_, err := io.WriteString(w, DigestText(d))
		return err
	}
}

// Bar draws a usage percentage as ten cells, "▓▓▓▓▓▓░░░░ 60%"; over 100%
// (borrowing) the bar is full and the number says by how much. A negative
// percent (no nominal quota, or not readable) draws none.
func Bar(percent int) string {
	if percent < 0 {
		return "no nominal quota"
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

// Signed prints a change with its sign: "+3", "-2", "0".
func Signed(n int) string {
	if n > 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprint(n)
}

// Whos names who acts on an item, for people reading a shared digest: the
// job's owner or the platform team.
func Whos(who []diagnose.Who) string {
	var names []string
	for _, w := range who {
		switch w {
		case diagnose.WhoYou:
			names = append(names, "job owner")
		default:
			names = append(names, string(w))
		}
	}
	if len(names) == 0 {
		return "platform team"
	}
	return strings.Join(names, ", ")
}

// TotalsLine is the digest's headline figures in one sentence.
func TotalsLine(d *digest.Digest) string {
	t := d.Totals
	s := fmt.Sprintf("%d pending", t.Pending)
	if t.Reserved > 0 {
		s += fmt.Sprintf(" (%d waiting for admission checks)", t.Reserved)
	}
	s += fmt.Sprintf(", %d admitted, %d finished since %s, %d waiting over %s, %d needing action",
		t.Admitted, t.Finished, d.Since.UTC().Format("Jan 2 15:04 MST"), t.LongWaits, Wait(d.LongWait), t.NeedsAction)
	if t.Stuck > 0 {
		s += fmt.Sprintf(", %d stuck after admission", t.Stuck)
	}
	return s
}

// StuckTitle heads the list of workloads stuck after admission.
func StuckTitle(d *digest.Digest) string {
	return fmt.Sprintf("Stuck after admission (holding quota; pods not running for over %s)", Wait(d.StuckAfter))
}

// stuckLine is one admitted workload whose pods do not run: reference, how
// long it has held its quota, verdict and cause.
func stuckLine(it *digest.Item) string {
	return fmt.Sprintf("%s/%s/%s  admitted %s ago  %s", it.Namespace, strings.ToLower(it.Kind), it.Name, Wait(it.Wait), it.Verdict())
}

// TrendLine is the change since the previous digest, or "" for the first.
func TrendLine(d *digest.Digest) string {
	tr := d.Trend
	if tr == nil {
		return ""
	}
	s := fmt.Sprintf("Since the digest of %s: pending %s, admitted %s, finished %s, long waits %s, needing action %s",
		tr.Since.UTC().Format("Jan 2 15:04 MST"), Signed(tr.Pending), Signed(tr.Admitted), Signed(tr.Finished), Signed(tr.LongWaits), Signed(tr.NeedsAction))
	if tr.Stuck != 0 {
		s += ", stuck after admission " + Signed(tr.Stuck)
	}
	var codes []string
	for _, c := range tr.ByCode {
		codes = append(codes, fmt.Sprintf("%s %s", c.Code, Signed(c.Delta)))
	}
	if len(codes) > 0 {
		s += "; " + strings.Join(codes, ", ")
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
func queueUsage(q *diagnose.QueueSummary, sep string) string {
	var parts []string
	for _, u := range q.Usage {
		name := string(u.Resource)
		if flavorCount(q) > 1 {
			name = u.Flavor + "/" + name
		}
		if q.NominalKnown && u.Percent >= 0 {
			parts = append(parts, fmt.Sprintf("%s %s/%s %s", name, diagnose.FormatQuantity(u.Used), diagnose.FormatQuantity(u.Nominal), Bar(u.Percent)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s used", name, diagnose.FormatQuantity(u.Used)))
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
func itemLine(it *digest.Item) string {
	s := fmt.Sprintf("%s/%s/%s  waiting %s  %s", it.Namespace, strings.ToLower(it.Kind), it.Name, Wait(it.Wait), it.Verdict())
	if it.Estimate.Known() {
		s += "  starts " + EstimateShort(it.Estimate)
	}
	return s
}

// EstimateShort is an estimate in a table cell: "in 20-45m", "now",
// "in 3h or later", "no estimate".
func EstimateShort(e *diagnose.Estimate) string {
	if !e.Known() {
		return "no estimate"
	}
	likely := e.Likely.Sub(e.At)
	lo := likely
	if e.Earliest != nil {
		lo = e.Earliest.Sub(e.At)
	}
	if e.Latest == nil {
		return "in " + Wait(likely) + " or later"
	}
	hi := e.Latest.Sub(e.At)
	switch {
	case hi < time.Minute:
		return "now"
	case Wait(lo) == Wait(hi):
		return "in " + Wait(likely)
	}
	return "in " + Wait(lo) + "-" + Wait(hi)
}

// DrainCell is when a queue is likely drained: "in 2h", "no estimate for
// 3", or <none> when nothing of it is pending or estimated.
func DrainCell(d *digest.Digest, q *digest.Queue) string {
	dr := q.Drain
	switch {
	case dr == nil || q.Pending == 0:
		return none
	case dr.NoEstimate > 0:
		return fmt.Sprintf("no estimate for %d", dr.NoEstimate)
	case dr.Likely == nil:
		return none
	}
	return "in " + Wait(max(0, dr.Likely.Sub(d.Now)))
}

// NotDrainingTitle heads the queues that will not drain today.
const NotDrainingTitle = "Will not drain today (their pending workloads are not all likely admitted by midnight)"

// notDrainingLine says why one queue will not drain today.
func notDrainingLine(d *digest.Digest, q *digest.Queue) string {
	dr := q.Drain
	if dr.NoEstimate > 0 {
		return fmt.Sprintf("%s: %d of its %d pending %s no estimate", QueueName(&q.QueueSummary), dr.NoEstimate, q.Pending, hasHave(dr.NoEstimate))
	}
	return fmt.Sprintf("%s: the last of its %d pending is likely admitted in %s", QueueName(&q.QueueSummary), dr.Estimated, Wait(max(0, dr.Likely.Sub(d.Now))))
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
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

// DigestText renders the digest for a terminal.
func DigestText(d *digest.Digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Digest %s, %s\n", d.Name, d.Now.UTC().Format("Mon Jan 2 2006 15:04 MST"))
	if d.Cluster != "" {
		fmt.Fprintf(&b, "%s %s\n", label(i18n.English, "render.label.cluster"), d.Cluster)
	}
	b.WriteString(wrap(TotalsLine(d)+".", 78, "") + "\n")
	if tl := TrendLine(d); tl != "" {
		b.WriteString(wrap(tl+".", 78, "") + "\n")
	}
	if len(d.Queues) > 0 {
		b.WriteString("\nQueues:\n")
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  QUEUE\tSTATE\tPENDING\tADMITTED\tOLDEST WAIT\tLONG WAITS\tLIKELY DRAINED\tUSAGE")
		for i := range d.Queues {
			q := &d.Queues[i]
			oldest := none
			if q.Pending > 0 {
				oldest = Wait(q.OldestWait)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\n", QueueName(&q.QueueSummary), q.State, q.Pending, q.Admitted, oldest, q.LongWaits, DrainCell(d, q), queueUsage(&q.QueueSummary, "; "))
		}
		_ = tw.Flush()
	}
	if nd := NotDraining(d); len(nd) > 0 {
		b.WriteString("\n" + NotDrainingTitle + ":\n")
		for _, q := range nd {
			fmt.Fprintf(&b, "  %s\n", notDrainingLine(d, q))
		}
	}
	if len(d.Groups) > 0 {
		b.WriteString("\nPending by verdict:\n")
		for i := range d.Groups {
			g := &d.Groups[i]
			fmt.Fprintf(&b, "  %s: %d", g.Code, g.Count)
			if c := causes(g); c != "" {
				fmt.Fprintf(&b, " (%s)", c)
			}
			b.WriteString("\n")
			for j, it := range g.Workloads {
				if j == d.TopN {
					fmt.Fprintf(&b, "    ... and %d more (-o json lists them all)\n", len(g.Workloads)-j)
					break
				}
				fmt.Fprintf(&b, "    %s\n", itemLine(it))
			}
		}
	} else {
		b.WriteString("\nNothing is pending.\n")
	}
	actionList(&b, "Needs action (waiting will not fix these)", d.NeedsAction, d.TopN, itemLine)
	actionList(&b, StuckTitle(d), d.Stuck, d.TopN, stuckLine)
	return b.String()
}

// actionList writes a titled list of the workloads someone has to act on,
// the first topN with who acts and the first remedy.
func actionList(b *strings.Builder, title string, items []*digest.Item, topN int, line func(*digest.Item) string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n" + title + ":\n")
	for j, it := range items {
		if j == topN {
			fmt.Fprintf(b, "  ... and %d more\n", len(items)-j)
			break
		}
		fmt.Fprintf(b, "  %s  -> %s\n", line(it), Whos(it.Who))
		if it.Remedy != "" {
			fmt.Fprintf(b, "    %s\n", wrap(oneLine(it.Remedy), 74, "    "))
		}
	}
}

// DigestMarkdown renders the digest as GitHub-flavoured Markdown.
func DigestMarkdown(d *digest.Digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Digest %s, %s\n\n", mdEscape(d.Name), d.Now.UTC().Format("Mon Jan 2 2006 15:04 MST"))
	if d.Cluster != "" {
		fmt.Fprintf(&b, "**%s** `%s`\n\n", tr(i18n.English, "render.label.cluster"), d.Cluster)
	}
	fmt.Fprintf(&b, "%s.\n\n", mdEscape(TotalsLine(d)))
	if tl := TrendLine(d); tl != "" {
		fmt.Fprintf(&b, "%s.\n\n", mdEscape(tl))
	}
	if len(d.Queues) > 0 {
		b.WriteString("| Queue | State | Pending | Admitted | Oldest wait | Long waits | Likely drained | Usage |\n|---|---|---:|---:|---:|---:|---|---|\n")
		for i := range d.Queues {
			q := &d.Queues[i]
			oldest := none
			if q.Pending > 0 {
				oldest = Wait(q.OldestWait)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d | %s | %s |\n", mdEscape(QueueName(&q.QueueSummary)), q.State, q.Pending, q.Admitted,
				mdEscape(oldest), q.LongWaits, mdEscape(DrainCell(d, q)), mdEscape(queueUsage(&q.QueueSummary, "<br>")))
		}
		b.WriteString("\n")
	}
	if nd := NotDraining(d); len(nd) > 0 {
		b.WriteString("**" + mdEscape(NotDrainingTitle) + "**\n\n")
		for _, q := range nd {
			fmt.Fprintf(&b, "- %s\n", mdEscape(notDrainingLine(d, q)))
		}
		b.WriteString("\n")
	}
	if len(d.Groups) > 0 {
		b.WriteString("**Pending by verdict**\n\n")
		for i := range d.Groups {
			g := &d.Groups[i]
			fmt.Fprintf(&b, "- `%s`: %d", g.Code, g.Count)
			if c := causes(g); c != "" {
				fmt.Fprintf(&b, " (%s)", c)
			}
			b.WriteString("\n")
			for j, it := range g.Workloads {
				if j == d.TopN {
					fmt.Fprintf(&b, "  - … and %d more\n", len(g.Workloads)-j)
					break
				}
				fmt.Fprintf(&b, "  - `%s` waiting %s", it.Namespace+"/"+strings.ToLower(it.Kind)+"/"+it.Name, Wait(it.Wait))
				if it.Estimate.Known() {
					b.WriteString(", starts " + mdEscape(EstimateShort(it.Estimate)))
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
	if len(d.NeedsAction) > 0 {
		b.WriteString("**Needs action** (waiting will not fix these)\n\n")
		for j, it := range d.NeedsAction {
			if j == d.TopN {
				fmt.Fprintf(&b, "- … and %d more\n", len(d.NeedsAction)-j)
				break
			}
			fmt.Fprintf(&b, "- `%s` `%s`, for the %s: %s\n", it.Namespace+"/"+strings.ToLower(it.Kind)+"/"+it.Name, it.Code, Whos(it.Who), mdEscape(oneLine(it.Remedy)))
		}
		b.WriteString("\n")
	}
	if len(d.Stuck) > 0 {
		fmt.Fprintf(&b, "**%s**\n\n", mdEscape(StuckTitle(d)))
		for j, it := range d.Stuck {
			if j == d.TopN {
				fmt.Fprintf(&b, "- … and %d more\n", len(d.Stuck)-j)
				break
			}
			fmt.Fprintf(&b, "- `%s` admitted %s ago, `%s`, for the %s: %s\n", it.Namespace+"/"+strings.ToLower(it.Kind)+"/"+it.Name, Wait(it.Wait), it.Verdict(), Whos(it.Who), mdEscape(oneLine(it.Remedy)))
		}
		b.WriteString("\n")
	}
	return b.String()
}
