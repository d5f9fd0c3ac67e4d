// Package rootfs is what kueuebot's container image holds, and how its
// binary is built: the one definition that both the daemonless build
// (hack/image build) and the Dockerfile (through hack/image rootfs) use.
package rootfs

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// The image's runtime configuration.
const (
	// UID and GID are the image's user: nonroot, never root.
	UID = 65532
	GID = 65532
	// User is the image config's User (numeric, so the kubelet can check
	// runAsNonRoot without reading /etc/passwd).
	User = "65532:65532"
	// Binary is where the binary lives and the image's entrypoint.
	Binary = "/kueuebot"
	// CABundle is where Go's crypto/x509 looks for roots on Linux.
	CABundle = "/etc/ssl/certs/ca-certificates.crt"
	// Package is the Go package of the binary.
	Package = "./cmd/kueuebot"
	// VersionVar is set to the version with -ldflags -X.
	VersionVar = "main.version"
)

// Entrypoint is the image's entrypoint.
var Entrypoint = []string{Binary}

// GoBuildEnv is the environment of the binary's build: a static binary for
// the platform, with no C toolchain involved.
func GoBuildEnv(goos, goarch string) []string {
	return []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + goarch}
}

// GoBuildFlags are the flags of the binary's build: reproducible paths,
// stripped symbols, the version stamped in.
func GoBuildFlags(version string) []string {
	return []string{"-trimpath", "-ldflags", fmt.Sprintf("-s -w -X %s=%s", VersionVar, version)}
}

// BuildBinary compiles kueuebot from the repository at repo for goos/goarch
// into out.
func BuildBinary(ctx context.Context, repo, version, goos, goarch, out string) error {
	args := append([]string{"build"}, GoBuildFlags(version)...)
	args = append(args, "-o", out, Package)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), GoBuildEnv(goos, goarch)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}

// File is one entry of the image's file system.
type File struct {
	// Path is absolute, e.g. "/etc/passwd".
	Path string
	// Mode holds the permission bits, and fs.ModeDir for folders. Root
	// owns every file: the bot's user may read them, not change them.
	Mode fs.FileMode
	// Data is a regular file's content.
	Data []byte
}

// Passwd and Group name root (owner of the files) and nonroot (the user
// the bot runs as); neither has a shell, and the image has none.
const (
	Passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n"
	Group  = "root:x:0:\nnonroot:x:65532:\n"
)

// Files is the image's whole file system around binary: the folders, the
// binary, the passwd and group entries and the CA bundle. Nothing else: no
// shell, no package manager, no libc.
func Files(binary []byte) ([]File, error) {
	ca, err := CAPEM()
	if err != nil {
		return nil, err
	}
	dir := fs.ModeDir | 0o755
	return []File{
		{Path: "/etc", Mode: dir},
		{Path: "/etc/ssl", Mode: dir},
		{Path: "/etc/ssl/certs", Mode: dir},
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte(Passwd)},
		{Path: "/etc/group", Mode: 0o644, Data: []byte(Group)},
		{Path: CABundle, Mode: 0o644, Data: ca},
		{Path: Binary, Mode: 0o755, Data: binary},
	}, nil
}

// CAPEM is the CA bundle: Mozilla's NSS roots as golang.org/x/crypto
// ships them (x509roots/fallback/bundle, pinned in go.mod, so the image
// does not depend on the build machine's trust store). Roots NSS trusts
// only with a distrust-after date are left out: PEM cannot say so.
func CAPEM() ([]byte, error) {
	var b bytes.Buffer
	n := 0
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("rootfs: the CA bundle is empty")
	}
	return b.Bytes(), nil
}

// WriteDir writes files under dir (for the Dockerfile, which copies dir
// to the image's /, owned by root).
func WriteDir(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if f.Mode.IsDir() {
			if err := os.MkdirAll(p, f.Mode.Perm()); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(p, f.Data, f.Mode.Perm()); err != nil {
			return err
		}
	}
	return nil
}
