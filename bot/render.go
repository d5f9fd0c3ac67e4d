package bot

import (
	"regexp"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
)

// answerOptions tunes renderAnswer.
type answerOptions struct {
	// Detailed shows the quota comparison and the evidence.
	Detailed bool
	// Shareable adds "Share in channel" (ephemeral answers only).
	Shareable bool
	// SharedBy notes who shared the answer (a Slack user ID).
	SharedBy string
	// Notify adds "Tell me when it starts" to pending answers.
	Notify bool
	// Render tunes the report rendering.
	Render blocks.Options
}

// renderAnswer renders a diagnosis with its buttons (blocks.Answer), and
// who shared it.
func renderAnswer(r diagnose.Report, o answerOptions) Message {
	m := blocks.Answer(r, blocks.AnswerOptions{Options: o.Render, Detailed: o.Detailed, Shareable: o.Shareable, Notify: o.Notify && o.SharedBy == ""})
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
	return blocks.ListOptions{Namespaces: res.Namespaces.Names, Truncated: res.Namespaces.Truncated, Clusters: res.Clusters}
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

// queueListMessage is the answer to "my queues" (or "queue NAME"): the
// caller's LocalQueues, narrowed to the one asked about, rendered by
// blocks.QueueList.
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
	return blocks.QueueList(queues, qa.res.Namespaces.Names)
}
