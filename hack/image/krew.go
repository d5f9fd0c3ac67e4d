package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

// krewPlatforms are the platforms the kubectl plugin is released for.
var krewPlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

// pluginBinary is the binary's name in a plugin archive: kubectl finds
// plugins by it, and kueuebot names itself "kubectl kueuebot" under it.
func pluginBinary(goos string) string {
	if goos == "windows" {
		return "kubectl-kueuebot.exe"
	}
	return "kubectl-kueuebot"
}

// archiveName is a release archive's file name (what the manifest's URLs
// end with).
func archiveName(tag, goos, goarch string) string {
	return fmt.Sprintf("kubectl-kueuebot_%s_%s_%s.tar.gz", tag, goos, goarch)
}

// krewArchive writes the release archive of one platform into dir: the
// binary, as kubectl-kueuebot, mode 0755, and the project's LICENSE (krew
// installs both).
func krewArchive(binary, license []byte, tag, goos, goarch, dir string, mtime time.Time) (string, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.ModTime = mtime
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{pluginBinary(goos), 0o755, binary}, {"LICENSE", 0o644, license}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return "", err
		}
		if _, err := tw.Write(f.data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	p := filepath.Join(dir, archiveName(tag, goos, goarch))
	return p, os.WriteFile(p, b.Bytes(), 0o644)
}

// renderKrewManifest renders the krew-release-bot template at tmplPath for
// tag, with each addURIAndSha's sha256 taken from the archive of the same
// name in archives.
func renderKrewManifest(tmplPath, tag, archives string) ([]byte, error) {
	src, err := os.ReadFile(tmplPath)
	if err != nil {
		return nil, err
	}
	data := struct{ TagName string }{tag}
	funcs := template.FuncMap{
		// addURIAndSha is krew-release-bot's: the URL (itself a template
		// over .TagName) and the sha256 of the file it names.
		"addURIAndSha": func(urlTmpl, tag string) (string, error) {
			t, err := template.New("url").Parse(urlTmpl)
			if err != nil {
				return "", err
			}
			var u strings.Builder
			if err := t.Execute(&u, struct{ TagName string }{tag}); err != nil {
				return "", err
			}
			b, err := os.ReadFile(filepath.Join(archives, path.Base(u.String())))
			if err != nil {
				return "", fmt.Errorf("no archive for %s: %w", u.String(), err)
			}
			sum := sha256.Sum256(b)
			return fmt.Sprintf("uri: %s\n      sha256: %s", u.String(), hex.EncodeToString(sum[:])), nil
		},
	}
	t, err := template.New(filepath.Base(tmplPath)).Funcs(funcs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// buildKrew builds every platform's archive into out and renders the
// manifest next to them.
func buildKrew(ctx context.Context, repo, tag, out string, epoch int64) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kueuebot-krew-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	license, err := os.ReadFile(filepath.Join(repo, "LICENSE"))
	if err != nil {
		return err
	}
	for _, p := range krewPlatforms {
		goos, goarch, _ := strings.Cut(p, "/")
		bin := filepath.Join(tmp, goos+"-"+goarch)
		if err := rootfs.BuildBinary(ctx, repo, tag, goos, goarch, bin); err != nil {
			return err
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		if _, err := krewArchive(b, license, tag, goos, goarch, out, time.Unix(epoch, 0)); err != nil {
			return err
		}
	}
	m, err := renderKrewManifest(filepath.Join(repo, "deploy", "krew", "kueuebot.yaml"), tag, out)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "kueuebot.yaml"), m, 0o644)
}
