package main

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"debug/buildinfo"
	"debug/elf"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

const testVersion = "v0.0.0-test.1"

// maxCompressed bounds the image's download size; the binary is most of it.
const maxCompressed = 40 << 20

var (
	once     sync.Once
	built    string
	buildErr error
)

// buildImage builds the image for this machine's architecture once per
// test binary, as make image does.
func buildImage(t *testing.T) string {
	t.Helper()
	once.Do(func() {
		dir, err := os.MkdirTemp("", "kueuebot-image-test-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "image")
		o := &buildOptions{repo: "../..", version: testVersion, platforms: []string{"linux/" + runtime.GOARCH}, out: built, epoch: 1700000000}
		_, buildErr = o.build(context.Background())
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		_ = os.RemoveAll(filepath.Dir(built))
	}
	os.Exit(code)
}

// platformImage opens the layout's image for linux/GOARCH.
func platformImage(t *testing.T, dir string) (v1.ImageIndex, v1.Image) {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Manifests) != 1 || tm.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != testVersion {
		t.Fatalf("layout index: %+v", tm.Manifests)
	}
	idx, err := top.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == runtime.GOARCH {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return idx, img
		}
	}
	t.Fatalf("no linux/%s image in %+v", runtime.GOARCH, im.Manifests)
	return nil, nil
}

// TestImage inspects the built image as a registry and a kubelet would
// see it.
func TestImage(t *testing.T) {
	_, img := platformImage(t, buildImage(t))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != rootfs.User || strings.HasPrefix(c.User, "0") || c.User == "" || strings.HasPrefix(c.User, "root") {
		t.Errorf("User %q: want the non-root %s", c.User, rootfs.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/kueuebot"}) || len(c.Cmd) != 0 {
		t.Errorf("Entrypoint %q Cmd %q", c.Entrypoint, c.Cmd)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || c.Labels["org.opencontainers.image.version"] != testVersion {
		t.Errorf("platform %s/%s, labels %v", cf.OS, cf.Architecture, c.Labels)
	}

	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var compressed int64
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			t.Fatal(err)
		}
		compressed += n
	}
	if len(layers) != 1 || compressed > maxCompressed {
		t.Errorf("%d layers, %d bytes compressed (at most %d)", len(layers), compressed, maxCompressed)
	}

	files := map[string][]byte{}
	modes := map[string]fs.FileMode{}
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := "/" + strings.TrimSuffix(h.Name, "/")
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s owned by %d:%d, want root", p, h.Uid, h.Gid)
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir {
			t.Errorf("%s is not a plain file or folder (type %c)", p, h.Typeflag)
		}
		modes[p] = h.FileInfo().Mode()
		if b, err := io.ReadAll(tr); err == nil && h.Typeflag == tar.TypeReg {
			files[p] = b
		}
	}
	want, err := rootfs.Files(nil)
	if err != nil {
		t.Fatal(err)
	}
	var wantPaths, gotPaths []string
	for _, f := range want {
		wantPaths = append(wantPaths, f.Path)
		if got := modes[f.Path]; got != f.Mode {
			t.Errorf("%s mode %v, want %v", f.Path, got, f.Mode)
		}
	}
	for p := range modes {
		gotPaths = append(gotPaths, p)
		if base := filepath.Base(p); slices.Contains([]string{"sh", "bash", "ash", "dash", "busybox"}, base) || strings.HasPrefix(p, "/bin") || strings.HasPrefix(p, "/usr") {
			t.Errorf("the image has %s: no shell or userland belongs in it", p)
		}
	}
	slices.Sort(wantPaths)
	slices.Sort(gotPaths)
	if !slices.Equal(wantPaths, gotPaths) {
		t.Errorf("files %v, want exactly %v", gotPaths, wantPaths)
	}
	if !strings.Contains(string(files["/etc/passwd"]), "nonroot:x:65532:65532:") || strings.Contains(string(files["/etc/passwd"]), "/bin/sh") {
		t.Errorf("/etc/passwd:\n%s", files["/etc/passwd"])
	}
	checkCABundle(t, files[rootfs.CABundle])
	checkBinary(t, files["/kueuebot"], int64(len(files["/kueuebot"])), compressed)
}

// checkCABundle: Go finds roots there, and they include the CAs of the
// endpoints the bot talks to (Slack's and most API servers' public CAs).
func checkCABundle(t *testing.T, b []byte) {
	t.Helper()
	var n int
	var names []string
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatalf("CA bundle: %v", err)
		}
		if !c.IsCA {
			t.Errorf("CA bundle holds a non-CA certificate %s", c.Subject)
		}
		names = append(names, c.Subject.CommonName)
		n++
	}
	if n < 100 {
		t.Errorf("CA bundle has %d roots", n)
	}
	for _, want := range []string{"ISRG Root X1", "DigiCert Global Root G2", "Amazon Root CA 1"} {
		if !slices.Contains(names, want) {
			t.Errorf("CA bundle lacks %s", want)
		}
	}
}

// checkBinary: static (no interpreter, no shared libraries), built with
// -trimpath and CGO off, and it runs, printing the version stamped in.
func checkBinary(t *testing.T, b []byte, size, compressed int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kueuebot")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%v)", p.Type)
		}
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	// (Go does not record -ldflags with -trimpath; the version output
	// below shows them.)
	if settings["-trimpath"] != "true" || settings["CGO_ENABLED"] != "0" {
		t.Errorf("build settings %v", settings)
	}
	if runtime.GOOS == "linux" {
		out, err := exec.Command(path, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "kueuebot "+testVersion+" ") {
			t.Errorf("kueuebot version: %v %s", err, out)
		}
	}
	t.Logf("image: binary %.1f MiB, compressed layer %.1f MiB", float64(size)/(1<<20), float64(compressed)/(1<<20))
}

// TestReproducible: the same sources and timestamp give the same image
// digest.
func TestReproducible(t *testing.T) {
	first := buildImage(t)
	again := filepath.Join(t.TempDir(), "image")
	o := &buildOptions{repo: "../..", version: testVersion, platforms: []string{"linux/" + runtime.GOARCH}, out: again, epoch: 1700000000}
	d2, err := o.build(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := platformImage(t, first)
	d1, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Errorf("two builds: %s and %s", d1, d2)
	}
}

// TestPush pushes the layout to a registry on loopback and reads it back.
func TestPush(t *testing.T) {
	dir := buildImage(t)
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	ref := strings.TrimPrefix(reg.URL, "http://") + "/kueuebot:" + testVersion
	digest, err := push(t.Context(), dir, ref)
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Index(r)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := got.Digest(); d != digest {
		t.Errorf("registry has %s, pushed %s", d, digest)
	}
	local, _ := platformImage(t, dir)
	if d, _ := local.Digest(); d != digest {
		t.Errorf("pushed %s, the layout's index is %s", digest, d)
	}
}
