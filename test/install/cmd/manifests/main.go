// Command manifests regenerates the kustomize base's generated files
// (deploy/manifests/config.yaml, kueuebot.yaml, rbac.yaml) from the Helm
// chart: make manifests. TestBaseUpToDate fails when they are stale.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kueuebot/kueuebot/test/install"
)

func main() {
	files, err := install.BaseFiles()
	if err == nil {
		for name, b := range files {
			if err = os.WriteFile(filepath.Join(install.ManifestsDir(), name), b, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifests:", err)
		os.Exit(1)
	}
}
