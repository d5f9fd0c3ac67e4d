// Package bot is the application: it turns a question typed in Slack (or
// in the terminal chat) into an answer. The Bot answers each Event the
// dispatcher hands it (a question, a button, the App Home tab, a triaged
// message) and delivers the answer where the privacy rules say; the Asker
// parses the question (package parse), resolves the asker to a Kubernetes
// identity, asks package explain as that identity, and writes one audit
// line; the answer is rendered with package blocks.
//
// The packages under it each hold one job, and none imports this one:
// transport (decode, verify, ack), dispatch (dedupe, fairness, bounds,
// deadlines), parse (pure text -> Request), triage (which support-channel
// messages are questions; the answer memory), blocks (pure Report -> Block
// Kit), delivery (the Slack Web API client and the Replier), metrics, ops
// (/metrics, /healthz, /readyz), event (the Event they all share), digests
// and leader.
//
// The rule of the package: every question gets an answer message, never a
// crash or a leak. Refusals and failures are rendered politely; internal
// errors are logged, not shown; anything that came from the cluster is
// escaped before it reaches Slack.
package bot
