// Package explain is the one place that answers a question: it takes a
// Kubernetes identity and a Question, finds the namespaces to look in, reads
// the objects as that identity, runs the pure diagnosis core and returns the
// Result with the facts an audit line needs. The Slack bot, the CLI, job
// lists and digests call it; none of them re-joins identity, namespaces,
// fetch and analysis on its own.
//
// Reading is behind the Reader interface: KubeReader reads a cluster
// through impersonation (one long-lived fetcher per identity, so discovery
// is not repeated per question), DumpReader reads a loaded dump.
package explain
