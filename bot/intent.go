package bot

import (
	"slices"

	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/explain"
)

// parseFor parses a question the way its entry point is typed: the slash
// command's verbs (parse.Command), a message a shortcut was used on
// (parse.Shortcut), or free text from a mention, a DM or the terminal
// (parse.Text). Errors are *parse.Error values whose message
// says what to type.
func parseFor(entry event.Entry, text string) (parse.Request, error) {
	switch entry {
	case event.EntrySlash:
		return parse.Command(text)
	case event.EntryShortcut:
		return parse.Shortcut(text)
	default:
		return parse.Text(text)
	}
}

// questionOf is the explain.Question an IntentDiagnose request asks.
func questionOf(r parse.Request) explain.Question {
	return explain.Question{Kind: r.Kind, Name: r.Name, Namespace: r.Namespace, Candidates: slices.Clone(r.Candidates)}
}
