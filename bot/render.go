package bot

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
)

// ShortcutWhy is the callback_id of the message shortcut "Why is this job
// waiting?" (deploy/slack/manifest.yaml).
const ShortcutWhy = "kueuebot_why"

// answerOptions tunes renderAnswer.
type answerOptions struct {
	// Detailed shows the quota comparison and the evidence.
	Detailed bool
	// Shareable adds "Share in channel" (ephemeral answers only).
	Shareable bool
	// SharedBy notes who shared the answer (a Slack user ID).
	SharedBy string
	// Render tunes the report rendering.
	Render blocks.Options
}

// renderAnswer renders a diagnosis with its buttons (blocks.Answer), and
// who shared it.
func renderAnswer(r diagnose.Report, o answerOptions) Message {
	m := blocks.Answer(r, blocks.AnswerOptions{Options: o.Render, Detailed: o.Detailed, Shareable: o.Shareable})
	if o.SharedBy != "" && reSlackUserID.MatchString(o.SharedBy) && len(m.Blocks) < blocks.MaxBlocks {
		// A context line before the buttons; the ID comes from Slack's
		// payload and is checked, so the mention cannot be forged.
		note := slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "Shared by <@"+o.SharedBy+">", false, true))
		bl := append([]slack.Block(nil), m.Blocks...)
		if n := len(bl); n > 0 && bl[n-1].BlockType() == slack.MBTAction {
			bl = append(bl[:n-1], note, bl[n-1])
		} else {
			bl = append(bl, note)
		}
		m.Blocks = bl
	}
	return m
}

var reSlackUserID = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)

// jobListMessage is the answer to "my jobs".
func jobListMessage(res explain.JobsResult) Message {
	return blocks.JobList(res.Jobs, listOptions(res))
}

func listOptions(res explain.JobsResult) blocks.ListOptions {
	return blocks.ListOptions{Namespaces: res.Namespaces.Names, Truncated: res.Namespaces.Truncated}
}

// homeView renders the App Home tab: the caller's jobs with their
// verdicts, or the notice (a refusal, a failure) under the tab's header.
func homeView(res *explain.JobsResult, notice *Message) slack.HomeTabViewRequest {
	if notice == nil && res != nil {
		return blocks.HomeView(res.Jobs, listOptions(*res))
	}
	bl := []slack.Block{slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "Your jobs", false, false))}
	if notice != nil {
		bl = append(bl, notice.Blocks...)
	}
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks.Fit(bl, "")}}
}

// maxQueuesListed bounds the queues one answer lists.
const maxQueuesListed = 20

// queueListMessage is the answer to "my queues" (or "queue NAME"): each of
// the caller's LocalQueues with its ClusterQueue, state, pending and
// admitted Workloads, the longest wait and usage against nominal quota.
// It stands in until package blocks renders queue lists.
func queueListMessage(qa queueAnswer) Message {
	var queues []diagnose.QueueSummary
	for _, s := range qa.res.Queues {
		switch {
		case qa.name == "":
		case qa.kind == "ClusterQueue" && s.ClusterQueue != qa.name:
			continue
		case qa.kind != "ClusterQueue" && s.Name != qa.name:
			continue
		}
		queues = append(queues, s)
	}
	where := "in your namespaces"
	if n := qa.res.Namespaces.Names; len(n) > 0 {
		shown := make([]string, 0, min(len(n), 5))
		for _, ns := range n[:min(len(n), 5)] {
			shown = append(shown, blocks.Code(ns))
		}
		where = "in " + strings.Join(shown, ", ")
		if len(n) > 5 {
			where += fmt.Sprintf(" and %d more", len(n)-5)
		}
	}
	if len(queues) == 0 {
		text := "I found none of your queues " + where + "."
		if qa.name != "" {
			text = "I found no queue " + blocks.Code(qa.name) + " " + where + " (or you may not see it)."
		}
		return blocks.Notice("", text)
	}
	header := fmt.Sprintf("Your queues (%d)", len(queues))
	bl := []slack.Block{
		slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, header, false, false)),
		slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, strings.ToUpper(where[:1])+where[1:], false, true)),
	}
	for i, s := range queues {
		if i == maxQueuesListed {
			bl = append(bl, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, fmt.Sprintf("… and %d more. Narrow the list: `/kueue queues -n NAMESPACE`.", len(queues)-maxQueuesListed), false, true)))
			break
		}
		bl = append(bl, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, queueLine(s), false, true), nil, nil))
	}
	return Message{Text: blocks.Escape(header), Blocks: blocks.Fit(bl, "kueuebot diagnose NAME -n NAMESPACE")}
}

// queueLine is one LocalQueue: name, ClusterQueue and state; counts and
// the longest wait; usage per flavor and resource.
func queueLine(s diagnose.QueueSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s* → %s · %s\n", blocks.Line(s.Namespace+"/"+s.Name), blocks.Code(s.ClusterQueue), blocks.Code(string(s.State)))
	fmt.Fprintf(&b, "%d pending · %d admitted", s.Pending, s.Admitted)
	if s.Reserved > 0 {
		fmt.Fprintf(&b, " · %d holding quota", s.Reserved)
	}
	if s.OldestPending != "" {
		fmt.Fprintf(&b, " · longest wait %s (%s)", s.OldestWait.Round(time.Second), blocks.Code(s.OldestPending))
	}
	for _, u := range s.Usage {
		b.WriteString("\n• " + blocks.Code(u.Flavor) + " " + blocks.Line(string(u.Resource)) + ": " + blocks.Line(u.Used.String()))
		if s.NominalKnown {
			b.WriteString(" of " + blocks.Line(u.Nominal.String()))
			if u.Percent >= 0 {
				fmt.Fprintf(&b, " (%d%%)", u.Percent)
			}
		}
	}
	if !s.NominalKnown && len(s.Usage) > 0 {
		b.WriteString("\n_I could not read the ClusterQueue's quota as you: usage only._")
	}
	return b.String()
}
