// Package diagnose turns a Snapshot of Kubernetes and Kueue objects into a
// Report that says why a job is not running, with a quota comparison and
// remedies.
//
// The rule of the package: no I/O, no clock reads, no globals, no map-order
// output. Everything it needs arrives in the Snapshot (including Now), so the
// same Snapshot always yields the same Report.
package diagnose
