package bot

import (
	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/kinds"
)

// helpText lists what to type, in l. It is mrkdwn written by us (the kind
// words come from diagnose/fetch's registry), not cluster data.
func helpText(l i18n.Lang) string {
	return i18n.Render(l, i18n.M("bot.help.text", i18n.Verbatim(kinds.Words())))
}

// HelpMessage is the answer to "help", in English.
func HelpMessage() Message { return HelpMessageIn(i18n.English) }

// HelpMessageIn is the answer to "help" in l.
func HelpMessageIn(l i18n.Lang) Message {
	return blocks.Notice(i18n.Render(l, i18n.M("bot.help.title")), helpText(l))
}
