// Package parse turns what a user typed into a Request: free text in any
// language (ParseRequest), the /kueue slash command (ParseCommand), a
// message a shortcut was used on (ParseShortcut) or posted in a support
// channel (ParseTriage, SignalsStuckJob).
//
// It is pure: text in, a Request or a *ParseError out. No I/O, no Slack
// client, no Kubernetes client; the only cluster knowledge it has is the
// kind registry (package kinds), for the words users type for job kinds.
// A ParseError's message is safe mrkdwn that says what to type instead.
package parse
