// Package digests builds and posts the scheduled pending-queue digests:
// Build turns a store filled as the digest's identity into a digest (no
// request per workload), and Runner posts each configured digest on its
// cron schedule, on one replica at a time (a coordination.k8s.io Lease),
// exactly once per scheduled time (a run key recorded in a ConfigMap before
// posting).
package digests
