// Package examples embeds the example dumps (objects as `kubectl get -o
// yaml` writes them, recorded from the real Kueue in the sandbox) that the
// chat demo answers from when no cluster is given.
package examples

import "embed"

// FS holds sample-job.yaml and the scenario dumps under scenarios/.
//
//go:embed *.yaml scenarios/*.yaml
var FS embed.FS
