package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

// TestRootfs: the folder the Dockerfile copies holds exactly rootfs.Files,
// with their modes, and the binary is byte for byte the one the daemonless
// build puts in the image (same flags, reproducible).
func TestRootfs(t *testing.T) {
	out := t.TempDir()
	if err := run("../../../..", "v0.0.0-test.1", "linux/"+runtime.GOARCH, out); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "kueuebot")
	if err := rootfs.BuildBinary(t.Context(), "../../../..", "v0.0.0-test.1", "linux", runtime.GOARCH, bin); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	files, err := rootfs.Files(want)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(out, f.Path)
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		seen[f.Path] = true
		if fi.Mode() != f.Mode {
			t.Errorf("%s mode %v, want %v", f.Path, fi.Mode(), f.Mode)
		}
		if !f.Mode.IsDir() {
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("%s differs from the image's (%v)", f.Path, err)
			}
		}
	}
	_ = filepath.WalkDir(out, func(p string, _ fs.DirEntry, _ error) error {
		rel := "/" + filepath.ToSlash(mustRel(t, out, p))
		if rel != "/." && !seen[rel] {
			t.Errorf("%s is not in the image", rel)
		}
		return nil
	})
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
