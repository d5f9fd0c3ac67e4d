package blocks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/render"
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
	hint := "The whole digest: `" + cli + "`."
	var bl []slack.Block
	bl = append(bl, slack.NewHeaderBlock(plain(truncate("Pending-queue digest: "+d.Name, MaxHeaderText))))
	bl = append(bl, clusterBlocks(diagnose.Report{Cluster: d.Cluster})...)
	summary := "*" + Escape(render.TotalsLine(d)) + ".*"
	if tl := render.TrendLine(d); tl != "" {
		summary += "\n" + Escape(tl) + "."
	}
	bl = append(bl, slack.NewSectionBlock(mrkdwn(summary), nil, nil))

	if len(d.Queues) > 0 {
		busiest := slices.Clone(d.Queues)
		slices.SortStableFunc(busiest, func(a, b digest.Queue) int { return b.Pending - a.Pending })
		shown := busiest[:min(len(busiest), maxDigestQueues)]
		var lines []string
		for i := range shown {
			lines = append(lines, digestQueueLine(&shown[i], d))
		}
		if n := len(d.Queues) - len(shown); n > 0 {
			lines = append(lines, fmt.Sprintf("_… and %d more queues in the thread._", n))
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
		bl = append(bl, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn("*Pending by verdict*\n"+strings.Join(lines, "\n")), nil, nil))
	} else {
		bl = append(bl, slack.NewSectionBlock(mrkdwn("Nothing is pending. :tada:"), nil, nil))
	}

	if nd := render.NotDraining(d); len(nd) > 0 {
		var lines []string
		for i, q := range nd {
			if i == d.TopN {
				lines = append(lines, fmt.Sprintf("_… and %d more._", len(nd)-i))
				break
			}
			lines = append(lines, notDrainingLine(q, d))
		}
		bl = append(bl, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn("*"+Escape(render.NotDrainingTitle)+"*\n"+strings.Join(lines, "\n")), nil, nil))
	}
	bl = append(bl, topSection("*Needs action* (waiting will not fix these)", d.NeedsAction, d.TopN, needsActionLine)...)
	bl = append(bl, topSection("*"+Escape(render.StuckTitle(d))+"*", d.Stuck, d.TopN, stuckLine)...)
	bl = append(bl, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("As of %s. Details in the thread; mention me with a job's name to ask about it.",
		d.Now.UTC().Format("Mon Jan 2 15:04 MST")))))
	main := Message{Text: truncate(Escape(fmt.Sprintf("Digest %s: %s", d.Name, render.TotalsLine(d))), MaxFallbackText), Blocks: Fit(bl, hint)}

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
			lines = append(lines, digestQueueLine(&d.Queues[i], d))
		}
		add("Every queue", lines)
	}
	if len(d.NeedsAction) > 0 {
		var lines []string
		for _, it := range d.NeedsAction {
			lines = append(lines, needsActionLine(it)+remedyLine(it))
		}
		add(fmt.Sprintf("Needs action: %d", len(d.NeedsAction)), capLines(lines, hint))
	}
	if len(d.Stuck) > 0 {
		var lines []string
		for _, it := range d.Stuck {
			lines = append(lines, stuckLine(it)+remedyLine(it))
		}
		add(fmt.Sprintf("Stuck after admission: %d", len(d.Stuck)), capLines(lines, hint))
	}
	for i := range d.Groups {
		g := &d.Groups[i]
		var lines []string
		for _, it := range g.Workloads {
			lines = append(lines, itemLine(it))
		}
		add(fmt.Sprintf("%s: %d", g.Code, g.Count), capLines(lines, hint))
	}
	if len(d.LongWaits) > 0 {
		var lines []string
		for _, it := range d.LongWaits {
			lines = append(lines, itemLine(it))
		}
		add(fmt.Sprintf("Waiting over %s: %d", render.Wait(d.LongWait), len(d.LongWaits)), capLines(lines, hint))
	}
	return main, replies
}

// topSection is a divider and a section that lists the first topN items
// under title (mrkdwn), or nothing when there are none.
func topSection(title string, items []*digest.Item, topN int, line func(*digest.Item) string) []slack.Block {
	if len(items) == 0 {
		return nil
	}
	var lines []string
	for j, it := range items {
		if j == topN {
			lines = append(lines, fmt.Sprintf("_… and %d more in the thread._", len(items)-j))
			break
		}
		lines = append(lines, line(it))
	}
	return []slack.Block{slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(title+"\n"+strings.Join(lines, "\n")), nil, nil)}
}

// capLines keeps the first maxGroupLines lines and counts the rest.
func capLines(lines []string, hint string) []string {
	if len(lines) <= maxGroupLines {
		return lines
	}
	return append(slices.Clip(lines[:maxGroupLines]), fmt.Sprintf("_… and %d more. %s_", len(lines)-maxGroupLines, hint))
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

// digestQueueLine is one queue: name, state, counts, longest wait, long
// waits, its trend, and a usage bar per flavor and resource.
func digestQueueLine(q *digest.Queue, d *digest.Digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s*", Escape(render.QueueName(&q.QueueSummary)))
	if q.State != diagnose.QueueActive {
		fmt.Fprintf(&b, " · *%s*", Escape(string(q.State)))
	}
	fmt.Fprintf(&b, " · %d pending", q.Pending)
	if d.Trend != nil {
		if delta, ok := d.Trend.Queues[digest.QueueKey(&q.QueueSummary)]; ok {
			fmt.Fprintf(&b, " (%s)", render.Signed(delta))
		}
	}
	fmt.Fprintf(&b, " · %d admitted", q.Admitted)
	if q.Pending > 0 && q.OldestWait > 0 {
		fmt.Fprintf(&b, " · oldest %s", render.Wait(q.OldestWait))
	}
	if q.LongWaits > 0 {
		fmt.Fprintf(&b, " · %d over %s", q.LongWaits, render.Wait(d.LongWait))
	}
	if dr := q.Drain; dr != nil && q.Pending > 0 {
		switch {
		case dr.NoEstimate > 0:
			fmt.Fprintf(&b, " · %d without an estimate", dr.NoEstimate)
		case dr.Likely != nil:
			fmt.Fprintf(&b, " · likely drained in %s", render.Wait(max(0, dr.Likely.Sub(d.Now))))
		}
	}
	for _, u := range q.Usage {
		if q.NominalKnown && u.Percent >= 0 {
			fmt.Fprintf(&b, "\n`%s` %s %s/%s %s", UsageBar(u.Percent), Escape(string(u.Resource)), diagnose.FormatQuantity(u.Used), diagnose.FormatQuantity(u.Nominal), Escape("("+u.Flavor+")"))
		} else {
			fmt.Fprintf(&b, "\n%s %s used %s", Escape(string(u.Resource)), diagnose.FormatQuantity(u.Used), Escape("("+u.Flavor+")"))
		}
	}
	return b.String()
}

// itemLine is one workload: its reference, wait and verdict, and when it
// likely starts.
func itemLine(it *digest.Item) string {
	s := fmt.Sprintf("• %s · waiting %s · %s", Code(it.Namespace+"/"+it.Kind+"/"+it.Name), render.Wait(it.Wait), Escape(it.Verdict()))
	if it.Estimate.Known() {
		s += " · starts " + Escape(render.EstimateShort(it.Estimate))
	}
	return s
}

// notDrainingLine is one queue that will not drain today, and why.
func notDrainingLine(q *digest.Queue, d *digest.Digest) string {
	if q.Drain.NoEstimate > 0 {
		verb := "have"
		if q.Drain.NoEstimate == 1 {
			verb = "has"
		}
		return fmt.Sprintf("• *%s*: %d of %d pending %s no estimate", Escape(render.QueueName(&q.QueueSummary)), q.Drain.NoEstimate, q.Pending, verb)
	}
	return fmt.Sprintf("• *%s*: the last of %d pending likely starts in %s", Escape(render.QueueName(&q.QueueSummary)), q.Pending, render.Wait(max(0, q.Drain.Likely.Sub(d.Now))))
}

// stuckLine is one admitted workload whose pods do not run: its
// reference, how long it has held its quota, its verdict and who acts.
func stuckLine(it *digest.Item) string {
	return fmt.Sprintf("• %s · admitted %s ago · %s → %s", Code(it.Namespace+"/"+it.Kind+"/"+it.Name), render.Wait(it.Wait), Escape(it.Verdict()), Escape(render.Whos(it.Who)))
}

func needsActionLine(it *digest.Item) string {
	return itemLine(it) + " → " + Escape(render.Whos(it.Who))
}

func remedyLine(it *digest.Item) string {
	if it.Remedy == "" {
		return ""
	}
	return "\n    " + Escape(truncate(strings.ReplaceAll(it.Remedy, "\n", " "), 300))
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
