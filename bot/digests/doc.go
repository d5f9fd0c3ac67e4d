// Package digests posts the scheduled pending-queue digests: Runner asks a
// Digester (explain.Explainer, the one join of identity, reads and the pure
// core) for each configured digest on its cron schedule, on one replica at
// a time (a coordination.k8s.io Lease), exactly once per scheduled time (a
// run key recorded in a ConfigMap before posting), and posts it.
package digests
