package bot

import (
	"strings"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// helpText lists what to type. It is mrkdwn written by us, not cluster data;
// the kinds come from fetch's registry.
var helpText = "Ask me why a job is waiting. I read the cluster as you, so I only see what you may see.\n" +
	"• `why is train-7 waiting?` or just `train-7`: a job in your default namespace\n" +
	"• `train-7 -n team-a`, `team-a/train-7` or `train-7 in ns team-a`: a job in a namespace\n" +
	"• `jobset/train-7`, `rayjob my-ray`: a job of a given kind (" + kindWords() + ")\n" +
	"• `job/NAME`: when the job's name is a common word such as `stuck`\n" +
	"• `help`: this message\n" +
	"Mention me (`@kueuebot train-7`), send me a direct message, or use `/kueue train-7`."

// HelpMessage is the answer to "help".
func HelpMessage() Message {
	return blocks.Notice("How to ask kueuebot", helpText)
}

// kindWords lists the first name of every kind kueuebot diagnoses.
func kindWords() string {
	var words []string
	for _, k := range fetch.Kinds() {
		words = append(words, k.Names[0])
	}
	return strings.Join(words, ", ")
}
