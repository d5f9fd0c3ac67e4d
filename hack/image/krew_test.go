package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

// krewPlugin mirrors krew's index.Plugin (sigs.k8s.io/krew/pkg/index), to
// decode the manifest strictly.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewManifest renders deploy/krew/kueuebot.yaml as a release would and
// checks it by krew's rules: a semantic version, a short description, one
// platform per release archive with its https URL, sha256 and binary.
func TestKrewManifest(t *testing.T) {
	const tag = "v1.2.3"
	dir := t.TempDir()
	sums := map[string]string{}
	for _, p := range krewPlatforms {
		goos, goarch, _ := strings.Cut(p, "/")
		content := []byte("archive of " + p)
		name := archiveName(tag, goos, goarch)
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(content)
		sums[name] = hex.EncodeToString(s[:])
	}
	b, err := renderKrewManifest("../../deploy/krew/kueuebot.yaml", tag, dir)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var m krewPlugin
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not a krew manifest: %v\n%s", err, b)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "kueuebot" {
		t.Errorf("header %s %s %s", m.APIVersion, m.Kind, m.Metadata.Name)
	}
	if m.Spec.Version != tag || m.Spec.ShortDescription == "" || len(m.Spec.ShortDescription) > 50 || m.Spec.Homepage == "" || m.Spec.Description == "" {
		t.Errorf("spec %+v", m.Spec)
	}
	var got []string
	for _, p := range m.Spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		got = append(got, os+"/"+arch)
		name := archiveName(tag, os, arch)
		if p.URI != "https://github.com/kueuebot/kueuebot/releases/download/"+tag+"/"+name {
			t.Errorf("%s/%s: uri %s", os, arch, p.URI)
		}
		if p.Sha256 != sums[name] || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(p.Sha256) {
			t.Errorf("%s/%s: sha256 %s, the archive's is %s", os, arch, p.Sha256, sums[name])
		}
		if p.Bin != pluginBinary(os) || len(p.Files) != 2 || p.Files[0].From != p.Bin || p.Files[0].To != "." || p.Files[1].From != "LICENSE" || p.Files[1].To != "." {
			t.Errorf("%s/%s: bin %s files %+v", os, arch, p.Bin, p.Files)
		}
	}
	if !slices.Equal(got, krewPlatforms) {
		t.Errorf("platforms %v, archives for %v", got, krewPlatforms)
	}
	if _, err := renderKrewManifest("../../deploy/krew/kueuebot.yaml", "v9.9.9", dir); err == nil || !strings.Contains(err.Error(), "no archive for") {
		t.Errorf("a manifest for archives that do not exist: err = %v", err)
	}
}

// TestKrewArchive: the archive krew installs holds the binary as
// kubectl-kueuebot, which then calls itself kubectl kueuebot, and the
// project's LICENSE.
func TestKrewArchive(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "build")
	if err := rootfs.BuildBinary(t.Context(), "../..", "v1.2.3", runtime.GOOS, runtime.GOARCH, bin); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	license, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	archive, err := krewArchive(b, license, "v1.2.3", runtime.GOOS, runtime.GOARCH, dir, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	h, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if h.Name != pluginBinary(runtime.GOOS) || h.Mode != 0o755 {
		t.Errorf("archive entry %s mode %o", h.Name, h.Mode)
	}
	extracted := filepath.Join(t.TempDir(), h.Name)
	data, err := io.ReadAll(tr)
	if err != nil || !bytes.Equal(data, b) {
		t.Fatalf("archived binary differs (%v)", err)
	}
	lh, err := tr.Next()
	if err != nil || lh.Name != "LICENSE" {
		t.Fatalf("no LICENSE after the binary in the archive (%v)", err)
	}
	if got, err := io.ReadAll(tr); err != nil || !bytes.Equal(got, license) {
		t.Errorf("archived LICENSE differs (%v)", err)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("more than the binary and LICENSE in the archive (%v)", err)
	}
	if err := os.WriteFile(extracted, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(extracted, "diagnose", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kubectl kueuebot diagnose [KIND/]NAME") {
		t.Errorf("kubectl-kueuebot diagnose --help: %v\n%s", err, out)
	}
}
