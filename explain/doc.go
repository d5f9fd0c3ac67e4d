// Package explain is the one place that answers a question, and the only
// join of identity -> readers -> store -> classify: it takes a Kubernetes
// identity, finds the namespaces to look in, reads the objects as that
// identity, runs the pure diagnosis core and returns the Result with the
// facts an audit line needs. Explain answers one job; Jobs, Queues (App
// Home) and Digest fill one store with a few LISTs (Lister) and give every
// workload, and every job without a Workload, the report a question about
// it alone gets (fetch.Store.Subjects and Classify). The Slack bot, the
// CLI, job lists and digests call it; none of them re-joins identity,
// namespaces, fetch and analysis on its own. Check answers "will this
// manifest fit?" before it is submitted: the pod sets Kueue would build,
// judged for its LocalQueue (or each one the caller may read) as a
// pending Workload is, reading as the caller and writing nothing.
//
// Reading is behind the Reader interface: KubeReader reads a cluster
// through impersonation (one long-lived fetcher per identity, kept in an
// LRUExpireCache, so discovery is not repeated per question), ClientReader
// with fixed clients (the CLI), DumpReader a loaded dump.
package explain
