package trace

import (
	"os"
	"path/filepath"
	"testing"
)

// sandbox returns the sandbox's state folder (KUEUEBOT_SANDBOX, relative to
// the repository when not absolute), or skips the test when it is not set.
func sandbox(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KUEUEBOT_SANDBOX")
	if dir == "" {
		t.Skip("KUEUEBOT_SANDBOX is not set: run make sandbox-up and set KUEUEBOT_SANDBOX=.sandbox")
	}
	abs := dir
	if !filepath.IsAbs(dir) {
		abs = filepath.Join("..", "..", "..", dir) // relative to the repository, as make prints it
	}
	if _, err := os.Stat(filepath.Join(abs, "kubeconfig")); err != nil {
		t.Fatalf("KUEUEBOT_SANDBOX=%s has no kubeconfig: %v", dir, err)
	}
	return abs
}
