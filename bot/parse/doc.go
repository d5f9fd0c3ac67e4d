// Package parse turns what a user typed into a Request: free text in any
// language (Text), the /kueue slash command (Command), a message a
// shortcut was used on (Shortcut) or posted in a support channel (Triage,
// SignalsStuckJob).
//
// It is pure: text in, a Request or an *Error out. No I/O, no Slack
// client, no Kubernetes client; the only cluster knowledge it has is the
// kind registry (package kinds), for the words users type for job kinds.
// An Error's message is safe mrkdwn that says what to type instead.
package parse
