// Package sandboxenv finds the sandbox the end-to-end tests run against
// (make sandbox-up): its state folder named by KUEUEBOT_SANDBOX.
package sandboxenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the repository's root folder (from this file's place in it).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// State returns the absolute path of the sandbox's state folder
// (KUEUEBOT_SANDBOX, relative to the repository when not absolute, as make
// prints it), or skips the test when it is not set. A folder without a
// kubeconfig fails the test: the sandbox is named but not up.
func State(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KUEUEBOT_SANDBOX")
	if dir == "" {
		t.Skip("KUEUEBOT_SANDBOX is not set: run make sandbox-up and set KUEUEBOT_SANDBOX=.sandbox")
	}
	abs := dir
	if !filepath.IsAbs(dir) {
		abs = filepath.Join(RepoRoot(), dir)
	}
	if _, err := os.Stat(filepath.Join(abs, "kubeconfig")); err != nil {
		t.Fatalf("KUEUEBOT_SANDBOX=%s has no kubeconfig: %v", dir, err)
	}
	return abs
}
