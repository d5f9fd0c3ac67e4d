package blocks

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
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
// name is escaped.
func QueueList(queues []diagnose.QueueSummary, namespaces []string) Message {
	var bl []slack.Block
	bl = append(bl, slack.NewHeaderBlock(plain("Your queues")))
	if len(queues) == 0 {
		where := "your namespaces"
		if len(namespaces) > 0 {
			where = Escape(strings.Join(namespaces, ", "))
		}
		body := "I found no LocalQueue in " + where + ". Ask your platform team which queue to use, then label your job with `kueue.x-k8s.io/queue-name`."
		bl = append(bl, slack.NewSectionBlock(mrkdwn(body), nil, nil))
		return Message{Text: "No LocalQueues found", Blocks: Fit(bl, "")}
	}
	shown := queues
	if len(shown) > maxQueueLines {
		shown = shown[:maxQueueLines]
	}
	for _, q := range shown {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(queueLine(q)), nil, nil))
	}
	if n := len(queues) - len(shown); n > 0 {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("… and %d more queues. Ask `queues -n NAMESPACE` for one namespace.", n))))
	}
	text := fmt.Sprintf("%d LocalQueues", len(queues))
	return Message{Text: text, Blocks: Fit(bl, "Ask `queues -n NAMESPACE` for one namespace.")}
}

func queueLine(q diagnose.QueueSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s* → ClusterQueue %s", Code(q.Namespace+"/"+q.Name), Code(q.ClusterQueue))
	if q.State != diagnose.QueueActive {
		fmt.Fprintf(&b, " · *%s*", Escape(string(q.State)))
	}
	fmt.Fprintf(&b, "\n%d pending · %d admitted", q.Pending, q.Admitted)
	if q.Reserved > 0 {
		fmt.Fprintf(&b, " · %d reserving", q.Reserved)
	}
	if n := q.WithoutWorkload; n > 0 {
		fmt.Fprintf(&b, " · %d %s no Workload (ask `my jobs` why)", n, map[bool]string{true: "job has", false: "jobs have"}[n == 1])
	}
	if q.Pending > 0 && q.OldestWait > 0 {
		fmt.Fprintf(&b, " · oldest wait %s", humanWait(q.OldestWait))
	}
	for _, u := range q.Usage {
		used := diagnose.FormatQuantity(u.Used)
		if q.NominalKnown && u.Percent >= 0 {
			fmt.Fprintf(&b, "\n`%s` %s / %s %s  %s", Escape(string(u.Resource)), used, diagnose.FormatQuantity(u.Nominal), Escape("("+u.Flavor+")"), UsageBar(u.Percent))
		} else {
			fmt.Fprintf(&b, "\n`%s` %s used %s", Escape(string(u.Resource)), used, Escape("("+u.Flavor+")"))
		}
	}
	if !q.NominalKnown {
		b.WriteString("\n_I could not read this queue's ClusterQueue, so its quota is not shown._")
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
