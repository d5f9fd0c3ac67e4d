// Package fetch builds a diagnose.Snapshot for one job, either live from the
// API server (as the caller, through the clients it is given) or offline from
// YAML/JSON files written by `kubectl get -o yaml`.
//
// The rule of the package: read only, with a small fixed number of requests
// per diagnosis (never a cluster-wide list of Workloads), and a failed read is
// a diagnose.Gap in the Snapshot, not an error. Fetch returns an error only
// when the cluster cannot be reached at all or the caller's context ends.
// Live and offline modes share one selection algorithm (collect), so both
// pick the same objects for the same target.
package fetch
