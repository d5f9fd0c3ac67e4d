// Package triage decides which messages posted in a support channel are
// questions about a stuck job (Triage.Watches, Triage.Detect, with the
// text analysis of package parse), and remembers recent answers so that
// the same job asked about again with the same verdict gets a link to the
// earlier answer (Triage.Recall, Triage.Remember).
//
// Answering a triaged question (reading the job as the poster, the thread
// answer, the escalation) is package bot's; turning a Slack message into
// a triage event is package transport's.
package triage
