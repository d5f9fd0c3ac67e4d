//go:build !linux

package e2e

import "os/exec"

// dieWithTest does nothing where the kernel offers no parent-death signal:
// t.Cleanup kills the process.
func dieWithTest(*exec.Cmd) {}
