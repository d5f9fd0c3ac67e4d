package blocks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
)

// Bounds of a posted digest. The channel message stays short; the details
// go in thread replies, at most maxDigestReplies of them.
const (
	// maxDigestQueues caps the queue lines of the channel message (the
	// busiest first); the thread lists them all.
	maxDigestQueues = 8
	// maxDigestReplies caps the thread replies of one digest.
	maxDigestReplies = 12
	// maxGroupLines caps the workloads one thread reply lists per group.
	maxGroupLines = 25
)

// DigestMessages renders a digest for Slack: the channel message (totals,
// trend, the busiest queues with their usage bars, the pending workloads
// counted by verdict, and the top of the needs-action list) and the thread
// replies with the details (every queue, each verdict group's workloads,
// the whole needs-action list, the long waits). Every name from the cluster
// is escaped; every message is within Slack's limits (Fit). cli is the
// command that prints the whole digest, e.g. "kueuebot digest --name
// team-a -o json", named where lists are cut.
func DigestMessages(d *digest.Digest, cli string) (Message, []Message) {
	return DigestMessagesIn(i18n.English, d, cli)
}

// DigestMessagesIn is DigestMessages in language l (a channel's digests
// language). Codes, causes, names, quantities and commands stay as they are.
func DigestMessagesIn(l i18n.Lang, d *digest.Digest, cli string) (Message, []Message) {
	hint := tr(l, "blocks.digest.hint", i18n.Verbatim(cli))
	var bl []slack.Block
	bl = append(bl, slack.NewHeaderBlock(plain(truncate(tr(l, "blocks.digest.header", i18n.Verbatim(d.Name)), MaxHeaderText))))
	bl = append(bl, clusterBlocks(diagnose.Report{Cluster: d.Cluster}, l)...)
	summary := "*" + Escape(render.TotalsLineIn(l, d)) + render.Period(l) + "*"
	if tl := render.TrendLineIn(l, d); tl != "" {
		summary += "\n" + Escape(tl) + render.Period(l)
	}
	bl = append(bl, slack.NewSectionBlock(mrkdwn(summary), nil, nil))

	if len(d.Queues) > 0 {
		busiest := slices.Clone(d.Queues)
		slices.SortStableFunc(busiest, func(a, b digest.Queue) int { return b.Pending - a.Pending })
		shown := busiest[:min(len(busiest), maxDigestQueues)]
		var lines []string
		for i := range shown {
			lines = append(lines, digestQueueLine(l, &shown[i], d))
		}
		if n := len(d.Queues) - len(shown); n > 0 {
			lines = append(lines, tr(l, "blocks.digest.moreQueues", i18n.Num(n)))
		}
		bl = append(bl, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(strings.Join(lines, "\n")), nil, nil))
	}

	if len(d.Groups) > 0 {
		var lines []string
		for i := range d.Groups {
			g := &d.Groups[i]
			line := fmt.Sprintf("• %s *%d*", Code(string(g.Code)), g.Count)
			if c := groupCauses(g); c != "" {
				line += " (" + Escape(c) + ")"
			}
			lines = append(lines, line)
		}
		bl = append(bl, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn("*"+tr(l, "render.digest.byVerdict")+"*\n"+strings.Join(lines, "\n")), nil, nil))
	} else {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(tr(l, "render.digest.nothing")+" :tada:"), nil, nil))
	}

	if nd := render.NotDraining(d); len(nd) > 0 {
		var lines []string
		for i, q := range nd {
			if i == d.TopN {
				lines = append(lines, tr(l, "blocks.digest.more", i18n.Num(len(nd)-i)))
				break
			}
			lines = append(lines, notDrainingLine(l, q, d))
		}
		bl = append(bl, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn("*"+Escape(render.NotDrainingTitleIn(l))+"*\n"+strings.Join(lines, "\n")), nil, nil))
	}
	bl = append(bl, topSection(l, tr(l, "blocks.digest.needsAction"), d.NeedsAction, d.TopN, needsActionLine)...)
	bl = append(bl, topSection(l, "*"+Escape(render.StuckTitleIn(l, d))+"*", d.Stuck, d.TopN, stuckLine)...)
	bl = append(bl, slack.NewContextBlock("", mrkdwn(tr(l, "blocks.digest.asOf", i18n.Verbatim(digestAsOf(l, d))))))
	main := Message{Text: truncate(Escape(tr(l, "blocks.digest.fallback", i18n.Verbatim(d.Name), i18n.Verbatim(render.TotalsLineIn(l, d)))), MaxFallbackText), Blocks: Fit(bl, hint)}

	var replies []Message
	add := func(title string, lines []string) {
		if len(lines) == 0 || len(replies) == maxDigestReplies {
			return
		}
		var rb []slack.Block
		rb = append(rb, slack.NewSectionBlock(mrkdwn("*"+Escape(title)+"*"), nil, nil))
		// Several lines per section, within a section's text limit.
		var cur []string
		size := 0
		for _, l := range lines {
			if size+len(l)+1 > MaxSectionText-100 && len(cur) > 0 {
				rb = append(rb, slack.NewSectionBlock(mrkdwn(strings.Join(cur, "\n")), nil, nil))
				cur, size = nil, 0
			}
			cur = append(cur, l)
			size += len(l) + 1
		}
		if len(cur) > 0 {
			rb = append(rb, slack.NewSectionBlock(mrkdwn(strings.Join(cur, "\n")), nil, nil))
		}
		replies = append(replies, Message{Text: truncate(Escape(title), MaxFallbackText), Blocks: Fit(rb, hint)})
	}
	if len(d.Queues) > maxDigestQueues {
		var lines []string
		for i := range d.Queues {
			lines = append(lines, digestQueueLine(l, &d.Queues[i], d))
		}
		add(tr(l, "blocks.digest.everyQueue"), lines)
	}
	if len(d.NeedsAction) > 0 {
		var lines []string
		for _, it := range d.NeedsAction {
			lines = append(lines, needsActionLine(l, it)+remedyLine(l, it))
		}
		add(tr(l, "blocks.digest.needsAction.count", i18n.Num(len(d.NeedsAction))), capLines(l, lines, hint))
	}
	if len(d.Stuck) > 0 {
		var lines []string
		for _, it := range d.Stuck {
			lines = append(lines, stuckLine(l, it)+remedyLine(l, it))
		}
		add(tr(l, "blocks.digest.stuck.count", i18n.Num(len(d.Stuck))), capLines(l, lines, hint))
	}
	for i := range d.Groups {
		g := &d.Groups[i]
		var lines []string
		for _, it := range g.Workloads {
			lines = append(lines, itemLine(l, it))
		}
		add(fmt.Sprintf("%s: %d", g.Code, g.Count), capLines(l, lines, hint))
	}
	if len(d.LongWaits) > 0 {
		var lines []string
		for _, it := range d.LongWaits {
			lines = append(lines, itemLine(l, it))
		}
		add(tr(l, "blocks.digest.longWaits.count", i18n.Verbatim(render.WaitIn(l, d.LongWait)), i18n.Num(len(d.LongWaits))), capLines(l, lines, hint))
	}
	return main, replies
}

// topSection is a divider and a section that lists the first topN items
// under title (mrkdwn), or nothing when there are none.
func topSection(l i18n.Lang, title string, items []*digest.Item, topN int, line func(i18n.Lang, *digest.Item) string) []slack.Block {
	if len(items) == 0 {
		return nil
	}
	var lines []string
	for j, it := range items {
		if j == topN {
			lines = append(lines, tr(l, "blocks.digest.moreThread", i18n.Num(len(items)-j)))
			break
		}
		lines = append(lines, line(l, it))
	}
	return []slack.Block{slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(title+"\n"+strings.Join(lines, "\n")), nil, nil)}
}

// capLines keeps the first maxGroupLines lines and counts the rest.
func capLines(l i18n.Lang, lines []string, hint string) []string {
	if len(lines) <= maxGroupLines {
		return lines
	}
	return append(slices.Clip(lines[:maxGroupLines]), tr(l, "blocks.digest.moreHint", i18n.Num(len(lines)-maxGroupLines), i18n.Verbatim(hint)))
}

func groupCauses(g *digest.Group) string {
	var parts []string
	for _, c := range g.Causes {
		if c.Cause != "" {
			parts = append(parts, fmt.Sprintf("%s %d", c.Cause, c.Count))
		}
	}
	return strings.Join(parts, ", ")
}

// digestAsOf is the digest's time in its context line.
func digestAsOf(l i18n.Lang, d *digest.Digest) string {
	if l == i18n.English {
		return d.Now.UTC().Format("Mon Jan 2 15:04 MST")
	}
	return render.DigestTime(l, d.Now, false)
}

// digestQueueLine is one queue: name, state, counts, longest wait, long
// waits, its trend, and a usage bar per flavor and resource.
func digestQueueLine(l i18n.Lang, q *digest.Queue, d *digest.Digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s*", Escape(render.QueueName(&q.QueueSummary)))
	if q.State != diagnose.QueueActive {
		fmt.Fprintf(&b, " · *%s*", Escape(string(q.State)))
	}
	b.WriteString(tr(l, "blocks.digest.q.pending", i18n.Num(q.Pending)))
	if d.Trend != nil {
		if delta, ok := d.Trend.Queues[digest.QueueKey(&q.QueueSummary)]; ok {
			fmt.Fprintf(&b, " (%s)", render.Signed(delta))
		}
	}
	b.WriteString(tr(l, "blocks.digest.q.admitted", i18n.Num(q.Admitted)))
	if q.Pending > 0 && q.OldestWait > 0 {
		b.WriteString(tr(l, "blocks.digest.q.oldest", i18n.Verbatim(render.WaitIn(l, q.OldestWait))))
	}
	if q.LongWaits > 0 {
		b.WriteString(tr(l, "blocks.digest.q.over", i18n.Num(q.LongWaits), i18n.Verbatim(render.WaitIn(l, d.LongWait))))
	}
	if dr := q.Drain; dr != nil && q.Pending > 0 {
		switch {
		case dr.NoEstimate > 0:
			b.WriteString(tr(l, "blocks.digest.q.noEstimate", i18n.Num(dr.NoEstimate)))
		case dr.Likely != nil:
			b.WriteString(tr(l, "blocks.digest.q.drained", i18n.Verbatim(render.WaitIn(l, max(0, dr.Likely.Sub(d.Now))))))
		}
	}
	for _, u := range q.Usage {
		if q.NominalKnown && u.Percent >= 0 {
			fmt.Fprintf(&b, "\n`%s` %s %s/%s %s", UsageBar(u.Percent), Escape(string(u.Resource)), diagnose.FormatQuantity(u.Used), diagnose.FormatQuantity(u.Nominal), Escape("("+u.Flavor+")"))
		} else {
			b.WriteString("\n" + tr(l, "blocks.digest.q.used", i18n.Verbatim(Escape(string(u.Resource))), i18n.Qty(diagnose.FormatQuantity(u.Used)), i18n.Verbatim(Escape("("+u.Flavor+")"))))
		}
	}
	return b.String()
}

func digestRef(it *digest.Item) string { return Code(it.Namespace + "/" + it.Kind + "/" + it.Name) }

// itemLine is one workload: its reference, wait and verdict, and when it
// likely starts.
func itemLine(l i18n.Lang, it *digest.Item) string {
	s := tr(l, "blocks.digest.item", i18n.Verbatim(digestRef(it)), i18n.Verbatim(render.WaitIn(l, it.Wait)), i18n.Verbatim(Escape(it.Verdict())))
	if it.Estimate.Known() {
		s += tr(l, "blocks.digest.item.starts", i18n.Verbatim(Escape(render.EstimateShortIn(l, it.Estimate))))
	}
	return s
}

// notDrainingLine is one queue that will not drain today, and why.
func notDrainingLine(l i18n.Lang, q *digest.Queue, d *digest.Digest) string {
	name := i18n.Verbatim(Escape(render.QueueName(&q.QueueSummary)))
	if q.Drain.NoEstimate > 0 {
		return tr(l, "blocks.digest.notDraining.noEstimate", name, i18n.Num(q.Drain.NoEstimate), i18n.Num(q.Pending))
	}
	return tr(l, "blocks.digest.notDraining.last", name, i18n.Num(q.Pending), i18n.Verbatim(render.WaitIn(l, max(0, q.Drain.Likely.Sub(d.Now)))))
}

// stuckLine is one admitted workload whose pods do not run: its
// reference, how long it has held its quota, its verdict and who acts.
func stuckLine(l i18n.Lang, it *digest.Item) string {
	return tr(l, "blocks.digest.stuck", i18n.Verbatim(digestRef(it)), i18n.Verbatim(render.WaitIn(l, it.Wait)), i18n.Verbatim(Escape(it.Verdict())), i18n.Verbatim(Escape(render.WhosIn(l, it.Who))))
}

func needsActionLine(l i18n.Lang, it *digest.Item) string {
	return itemLine(l, it) + " → " + Escape(render.WhosIn(l, it.Who))
}

func remedyLine(l i18n.Lang, it *digest.Item) string {
	rem := render.RemedyIn(l, it)
	if rem == "" {
		return ""
	}
	return "\n    " + Escape(truncate(strings.ReplaceAll(rem, "\n", " "), 300))
}

// WithNote puts note (plain text, escaped here) as a context line under
// the message's header, e.g. why a digest comes late.
func WithNote(m Message, note string) Message {
	ctx := slack.NewContextBlock("", mrkdwn(":hourglass: "+Escape(note)))
	bl := make([]slack.Block, 0, len(m.Blocks)+1)
	if len(m.Blocks) > 0 && m.Blocks[0].BlockType() == slack.MBTHeader {
		bl = append(bl, m.Blocks[0], ctx)
		bl = append(bl, m.Blocks[1:]...)
	} else {
		bl = append(append(bl, ctx), m.Blocks...)
	}
	return Message{Text: truncate(Escape(note)+" "+m.Text, MaxFallbackText), Blocks: Fit(bl, "")}
}
