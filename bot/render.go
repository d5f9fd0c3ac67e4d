package bot

// Rendering of answers with their buttons, job lists and the App Home
// view. These are the pipeline's stand-ins until package blocks provides
// blocks.Answer, blocks.JobList, blocks.HomeView and blocks.JobRef (same
// action IDs, same value format): the handlers only call the functions in
// this file, so switching is local to it.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
)

// Action IDs of the buttons and the picker on the bot's messages.
const (
	ActionRefresh = "kueuebot_refresh"
	ActionDetails = "kueuebot_details"
	ActionShare   = "kueuebot_share"
	ActionPick    = "kueuebot_pick"
)

// ShortcutWhy is the callback_id of the message shortcut "Why is this job
// waiting?" (deploy/slack/manifest.yaml).
const ShortcutWhy = "kueuebot_why"

// jobRef names a job in a button value: only the reference travels, never
// an identity; whoever presses the button is re-resolved and re-read.
type jobRef struct {
	Namespace, Kind, Name string
}

// String is the button value: "Kind/namespace/name" (namespace may be
// empty when the job was searched in all the caller's namespaces).
func (r jobRef) String() string { return r.Kind + "/" + r.Namespace + "/" + r.Name }

var reKind = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,62}$`)

// parseJobRef parses a button value written by jobRef.String.
func parseJobRef(s string) (jobRef, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return jobRef{}, fmt.Errorf("job reference %q: want Kind/namespace/name", s)
	}
	r := jobRef{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	switch {
	case r.Kind != "" && !reKind.MatchString(r.Kind):
		return jobRef{}, fmt.Errorf("job reference %q: bad kind", s)
	case r.Namespace != "" && len(validation.IsDNS1123Label(r.Namespace)) > 0:
		return jobRef{}, fmt.Errorf("job reference %q: bad namespace", s)
	case len(validation.IsDNS1123Subdomain(r.Name)) > 0:
		return jobRef{}, fmt.Errorf("job reference %q: bad name", s)
	}
	return r, nil
}

func refOf(t diagnose.TargetInfo) jobRef {
	return jobRef{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}
}

func (r jobRef) question() explain.Question {
	return explain.Question{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// answerOptions tunes renderAnswer.
type answerOptions struct {
	// Detailed shows the quota table and the evidence; the compact answer
	// leaves them for the "Show quota and evidence" button.
	Detailed bool
	// Shareable adds "Share in channel" (ephemeral answers only).
	Shareable bool
	// NoButtons leaves the buttons out (the terminal chat).
	NoButtons bool
	// SharedBy notes who shared the answer (a Slack user ID).
	SharedBy string
	// Render tunes the report rendering.
	Render blocks.Options
}

var reSlackUserID = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)

// renderAnswer renders a diagnosis with its buttons.
func renderAnswer(r diagnose.Report, o answerOptions) Message {
	if !o.Detailed {
		r.Quota, r.Evidence = nil, nil
	}
	m := blocks.Report(r, o.Render)
	if o.SharedBy != "" && reSlackUserID.MatchString(o.SharedBy) {
		m.Blocks = append(m.Blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "Shared by <@"+o.SharedBy+">", false, true)))
	}
	if o.NoButtons || r.Target.Name == "" {
		return m
	}
	value := refOf(r.Target).String()
	btn := func(id, text string) slack.BlockElement {
		return slack.NewButtonBlockElement(id, value, slack.NewTextBlockObject(slack.PlainTextType, text, false, false))
	}
	els := []slack.BlockElement{btn(ActionRefresh, "Refresh")}
	if !o.Detailed && r.Verdict.Code != diagnose.CodeNotFound {
		els = append(els, btn(ActionDetails, "Show quota and evidence"))
	}
	if o.Shareable {
		els = append(els, btn(ActionShare, "Share in channel"))
	}
	m.Blocks = blocks.Fit(append(m.Blocks, slack.NewActionBlock("kueuebot_answer", els...)), blocks.MoreHint(r.Target))
	return m
}

// maxListed is how many jobs a list shows (and the picker offers).
const maxListed = 25

// renderJobList renders the caller's jobs that are not running: one line
// each with the verdict code and headline, and a picker to open one.
func renderJobList(res explain.JobsResult, withPicker bool) []slack.Block {
	if len(res.Jobs) == 0 {
		return []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType,
			"None of your jobs is waiting"+namespacesNote(res)+".", false, true), nil, nil)}
	}
	bl := []slack.Block{slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, fmt.Sprintf("Your jobs that are not running (%d)", len(res.Jobs)), false, false))}
	var lines []string
	var opts []*slack.OptionBlockObject
	for i, r := range res.Jobs {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("… and %d more", len(res.Jobs)-maxListed))
			break
		}
		t := r.Target
		lines = append(lines, fmt.Sprintf("• %s %s: %s", blocks.Code(t.Namespace+"/"+t.Name), blocks.Code(string(r.Verdict.Code)), blocks.Line(r.Verdict.Headline)))
		label := t.Namespace + "/" + t.Name
		if len([]rune(label)) > 75 {
			label = string([]rune(label)[:74]) + "…"
		}
		opts = append(opts, slack.NewOptionBlockObject(refOf(t).String(), slack.NewTextBlockObject(slack.PlainTextType, label, false, false), nil))
	}
	bl = append(bl, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Join(lines, "\n"), false, true), nil, nil))
	if withPicker && len(opts) > 0 {
		sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, slack.NewTextBlockObject(slack.PlainTextType, "Open a job", false, false), ActionPick, opts...)
		bl = append(bl, slack.NewActionBlock("kueuebot_jobs", sel))
	}
	return bl
}

func namespacesNote(res explain.JobsResult) string {
	if len(res.Namespaces.Names) == 0 {
		return ""
	}
	return " in " + blocks.Escape(strings.Join(res.Namespaces.Names, ", "))
}

// jobListMessage is the answer to "my jobs".
func jobListMessage(res explain.JobsResult) Message {
	bl := renderJobList(res, true)
	text := fmt.Sprintf("%d of your jobs are not running", len(res.Jobs))
	return Message{Text: text, Blocks: blocks.Fit(bl, "kueuebot diagnose NAME -n NAMESPACE -o text")}
}

// homeView renders the App Home tab: the caller's jobs with their
// verdicts and a Refresh button, or the notice (a refusal, a failure).
func homeView(res *explain.JobsResult, notice *Message) slack.HomeTabViewRequest {
	bl := []slack.Block{
		slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "kueuebot: why is my job waiting?", false, false)),
		slack.NewActionBlock("kueuebot_home", slack.NewButtonBlockElement(ActionRefresh, "home", slack.NewTextBlockObject(slack.PlainTextType, "Refresh", false, false))),
	}
	switch {
	case notice != nil:
		bl = append(bl, notice.Blocks...)
	case res != nil:
		bl = append(bl, renderJobList(*res, true)...)
	}
	bl = append(bl, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "Ask me about a job with `/kueue why NAME`, a mention or a direct message. I read the cluster as you.", false, true)))
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks.Fit(bl, "")}}
}
