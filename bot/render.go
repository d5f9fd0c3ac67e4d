package bot

import (
	"regexp"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
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
		note := slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, i18n.Render(o.Render.Lang, i18n.M("bot.sharedBy", i18n.Verbatim("<@"+o.SharedBy+">"))), false, true))
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
func jobListMessage(res explain.JobsResult, l i18n.Lang) Message {
	return blocks.JobList(res.Jobs, listOptions(res, l))
}

func listOptions(res explain.JobsResult, l i18n.Lang) blocks.ListOptions {
	return blocks.ListOptions{Namespaces: res.Namespaces.Names, Truncated: res.Namespaces.Truncated, Clusters: res.Clusters, Lang: l}
}

// homeView renders the App Home tab: the caller's jobs with their
// verdicts, or the notice (a refusal, a failure) under the tab's header,
// in l; with selector, a language menu first (languageSelector).
func homeView(res *explain.JobsResult, notice *Message, l i18n.Lang, remembered, selector bool) slack.HomeTabViewRequest {
	var v slack.HomeTabViewRequest
	if notice == nil && res != nil {
		v = blocks.HomeView(res.Jobs, listOptions(*res, l))
	} else {
		bl := []slack.Block{slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, i18n.Render(l, i18n.M("bot.home.title")), false, false))}
		if notice != nil {
			bl = append(bl, notice.Blocks...)
		}
		v = slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks.Fit(bl, "")}}
	}
	if selector && len(v.Blocks.BlockSet) < blocks.MaxViewBlocks {
		v.Blocks.BlockSet = append([]slack.Block{languageSelector(l, remembered)}, v.Blocks.BlockSet...)
	}
	return v
}

// ActionLanguage is the action ID of the App Home's language menu; the
// chosen option's value is a language code, or LangAuto.
const ActionLanguage = "kueuebot_language"

// LangAuto is the language menu's value for "the language I ask in".
const LangAuto = "auto"

// languageSelector is the App Home's "Answer me in" menu, its options each
// in its own language; l is selected when remembered, else "the language I
// ask in".
func languageSelector(l i18n.Lang, remembered bool) slack.Block {
	opt := func(value, text string) *slack.OptionBlockObject {
		return slack.NewOptionBlockObject(value, slack.NewTextBlockObject(slack.PlainTextType, text, false, false), nil)
	}
	opts := []*slack.OptionBlockObject{opt(LangAuto, i18n.Render(l, i18n.M("bot.lang.automatic")))}
	for _, x := range i18n.All() {
		opts = append(opts, opt(x.String(), x.Name()))
	}
	menu := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, slack.NewTextBlockObject(slack.PlainTextType, i18n.Render(l, i18n.M("bot.lang.label")), false, false), ActionLanguage, opts...)
	menu.InitialOption = opts[0]
	if remembered {
		menu.InitialOption = opts[1+int(l)]
	}
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "*"+i18n.Render(l, i18n.M("bot.lang.label"))+"*", false, false), nil, slack.NewAccessory(menu), slack.SectionBlockOptionBlockID("kueuebot_language"))
}

// queueListMessage is the answer to "my queues" (or "queue NAME"): the
// caller's LocalQueues, narrowed to the one asked about, rendered by
// blocks.QueueList.
func queueListMessage(qa queueAnswer, l i18n.Lang) Message {
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
	return blocks.QueueListAcross(queues, qa.res.Namespaces.Names, qa.res.Clusters, l)
}
