package bot

import (
	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/kinds"
)

// helpText lists what to type. It is mrkdwn written by us (the kind words
// come from diagnose/fetch's registry), not cluster data.
func helpText() string {
	return "Ask me why a job is waiting. I read the cluster as you, so I only see what you may see.\n" +
		"• `why is train-7 waiting?` or just `train-7`: a job in your namespaces\n" +
		"• `train-7 -n team-a`, `team-a/train-7` or `train-7 in ns team-a`: a job in a namespace\n" +
		"• `jobset/train-7`, `rayjob my-ray`: a job of a given kind (" + kinds.Words() + ")\n" +
		"• `job/NAME`: when the job's name is a common word such as `stuck`\n" +
		"• `my jobs`: your jobs that are not running; `my queues`: your queues\n" +
		"• `/kueue notify train-7` (or *Tell me when it starts* on an answer): a DM when it is admitted, runs, fails or finishes, where notifications are on; `stop` in our DM ends them\n" +
		"• `help`: this message\n" +
		"Ask in any language: `pourquoi train-7 attend ?`, `train-7 はなぜ待っているの？`, `为什么train-7在等待？`.\n" +
		"Mention me (`@kueuebot train-7`), send me a direct message, or use `/kueue why train-7`, `/kueue jobs`, `/kueue queues`, `/kueue help`."
}

// HelpMessage is the answer to "help".
func HelpMessage() Message {
	return blocks.Notice("How to ask kueuebot", helpText())
}
