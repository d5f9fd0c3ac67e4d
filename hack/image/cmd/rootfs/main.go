// Command rootfs writes the image's file system (rootfs.Files: the binary
// built for the platform, passwd, group, CA bundle) into a folder. The
// Dockerfile runs it and copies the folder onto an empty base, so a Docker
// build holds exactly what the daemonless build does.
//
//	go run ./cmd/rootfs -version v0.1.0 -platform linux/arm64 -o /rootfs
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

func main() {
	version := flag.String("version", "dev", "version stamped into the binary")
	platform := flag.String("platform", "linux/amd64", "GOOS/GOARCH of the binary")
	repo := flag.String("repo", "../..", "the kueuebot repository")
	out := flag.String("o", "", "folder to write (required)")
	flag.Parse()
	if err := run(*repo, *version, *platform, *out); err != nil {
		fmt.Fprintln(os.Stderr, "rootfs:", err)
		os.Exit(1)
	}
}

func run(repo, version, platform, out string) error {
	goos, goarch, ok := strings.Cut(platform, "/")
	if !ok || out == "" {
		return fmt.Errorf("want -platform GOOS/GOARCH and -o FOLDER")
	}
	tmp, err := os.MkdirTemp("", "kueuebot-rootfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "kueuebot")
	if err := rootfs.BuildBinary(context.Background(), repo, version, goos, goarch, bin); err != nil {
		return err
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	files, err := rootfs.Files(b)
	if err != nil {
		return err
	}
	return rootfs.WriteDir(out, files)
}
