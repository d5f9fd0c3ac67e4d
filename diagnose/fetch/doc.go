// Package fetch builds diagnose.Snapshots: live from the API server for one
// job (Fetcher, as the caller, through the clients it is given), or from a
// Store of many objects (filled from JSON/YAML files written by
// `kubectl get -o json|yaml`, from paginated LISTs, or from objects in
// hand) for any number of jobs with no request per job.
//
// The rule of the package: read only, with a small fixed number of requests
// per diagnosis (Fetch never lists Workloads cluster-wide; ListInto makes a
// handful of LISTs per namespace whatever the number of Workloads), and a
// failed read is a diagnose.Gap in the Snapshot, not an error. Fetch and
// ListInto return an error only when the cluster cannot be reached at all,
// the impersonation is refused, or the caller's context ends. Live and store
// modes share one selection algorithm (collect), so both pick the same
// objects for the same target.
package fetch
