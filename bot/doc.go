// Package bot turns a question typed in Slack (or in the terminal chat) into
// an answer: it parses the question into a Request, resolves the asker to a
// Kubernetes identity, asks the Diagnoser, and renders the Report with
// package bot/blocks.
//
// The rule of the package: every question gets an answer message, never a
// crash or a leak. Refusals and failures are rendered politely; internal
// errors are logged, not shown; anything that came from the cluster is
// escaped before it reaches Slack.
package bot
