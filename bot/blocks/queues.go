package blocks

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// maxQueueLines caps the queues one message lists; the rest are counted.
const maxQueueLines = 40

// barWidth is the number of cells of a usage bar.
const barWidth = 10

// UsageBar draws used against nominal as a bar people read at a glance,
// e.g. "▓▓▓▓▓▓░░░░ 60%". Over 100% (borrowing) the bar is full and the
// percentage says by how much; an unknown nominal quota draws no bar.
func UsageBar(percent int) string {
	if percent < 0 {
		return "no nominal quota"
	}
	filled := min(percent*barWidth/100, barWidth)
	if percent > 0 && filled == 0 {
		filled = 1
	}
	return strings.Repeat("▓", filled) + strings.Repeat("░", barWidth-filled) + fmt.Sprintf(" %d%%", percent)
}

// QueueList renders the caller's LocalQueues (`/kueue queues`): per queue
// its ClusterQueue and state, pending and admitted counts, the longest
// wait, and usage against nominal quota per flavor and resource. Every
// name is escaped. English; QueueListIn renders it in a language.
func QueueList(queues []diagnose.QueueSummary, namespaces []string) Message {
	return QueueListIn(queues, namespaces, i18n.English)
}

// QueueListIn is QueueList in l.
func QueueListIn(queues []diagnose.QueueSummary, namespaces []string, l i18n.Lang) Message {
	return QueueListAcross(queues, namespaces, nil, l)
}

// QueueListAcross is QueueListIn for queues read in several clusters:
// each queue names its cluster (QueueSummary.Cluster) and every cluster
// that could not be read is named under the header (looks).
func QueueListAcross(queues []diagnose.QueueSummary, namespaces []string, looks []diagnose.ClusterLook, l i18n.Lang) Message {
	var bl []slack.Block
	bl = append(bl, slack.NewHeaderBlock(plain(tr(l, "blocks.queues.title"))))
	if n := clusterNotes(l, looks); n != "" {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(truncate(n, MaxContextText))))
	}
	if len(queues) == 0 {
		where := tr(l, "blocks.queues.yours")
		if len(namespaces) > 0 {
			where = Escape(strings.Join(namespaces, ", "))
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(tr(l, "blocks.queues.none", i18n.Verbatim(where))), nil, nil))
		return Message{Text: tr(l, "blocks.queues.noneText"), Blocks: Fit(bl, "")}
	}
	shown := queues
	if len(shown) > maxQueueLines {
		shown = shown[:maxQueueLines]
	}
	for _, q := range shown {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(queueLine(q, l)), nil, nil))
	}
	if n := len(queues) - len(shown); n > 0 {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(tr(l, "blocks.queues.more", i18n.Num(n)))))
	}
	text := tr(l, "blocks.queues.count", i18n.Num(len(queues)))
	return Message{Text: text, Blocks: Fit(bl, tr(l, "blocks.queues.hint"))}
}

func queueLine(q diagnose.QueueSummary, l i18n.Lang) string {
	var b strings.Builder
	name := q.Namespace + "/" + q.Name
	if q.Cluster != "" {
		name = q.Cluster + ": " + name // as "my jobs" names a job's cluster
	}
	fmt.Fprintf(&b, "*%s* → ClusterQueue %s", Code(name), Code(q.ClusterQueue))
	if q.State != diagnose.QueueActive {
		fmt.Fprintf(&b, " · *%s*", Escape(string(q.State)))
	}
	b.WriteString("\n" + tr(l, "blocks.queues.counts", i18n.Num(q.Pending), i18n.Num(q.Admitted)))
	if q.Reserved > 0 {
		b.WriteString(" · " + tr(l, "blocks.queues.reserving", i18n.Num(q.Reserved)))
	}
	if n := q.WithoutWorkload; n > 0 {
		b.WriteString(" · " + tr(l, "blocks.queues.noWorkload", i18n.Num(n)))
	}
	if q.Pending > 0 && q.OldestWait > 0 {
		if l == i18n.English {
			fmt.Fprintf(&b, " · oldest wait %s", humanWait(q.OldestWait))
		} else {
			b.WriteString(" · " + tr(l, "blocks.queues.oldest", i18n.Dur(q.OldestWait)))
		}
	}
	for _, u := range q.Usage {
		used := diagnose.FormatQuantity(u.Used)
		if q.NominalKnown && u.Percent >= 0 {
			fmt.Fprintf(&b, "\n`%s` %s / %s %s  %s", Escape(string(u.Resource)), used, diagnose.FormatQuantity(u.Nominal), Escape("("+u.Flavor+")"), UsageBar(u.Percent))
		} else {
			fmt.Fprintf(&b, "\n`%s` %s %s", Escape(string(u.Resource)), tr(l, "blocks.queues.used", i18n.Verbatim(used)), Escape("("+u.Flavor+")"))
		}
	}
	if !q.NominalKnown {
		b.WriteString("\n_" + tr(l, "blocks.queues.noQuota") + "_")
	}
	return b.String()
}

// humanWait prints a wait in the largest sensible units: "3h 20m", "45m",
// "2d 4h".
func humanWait(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}
