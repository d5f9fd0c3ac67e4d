package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes cmd's process receive SIGKILL when the test binary
// dies (a test timeout's panic skips t.Cleanup).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
