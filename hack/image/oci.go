package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

// source is the image's org.opencontainers.image.source.
const source = "https://github.com/kueuebot/kueuebot"

type buildOptions struct {
	repo      string
	version   string
	platforms []string
	out       string
	epoch     int64
}

func sourceDateEpoch() int64 {
	n, _ := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	return n
}

// build writes the OCI image layout and returns the index's digest.
func (o *buildOptions) build(ctx context.Context) (v1.Hash, error) {
	created := time.Unix(o.epoch, 0).UTC()
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	tmp, err := os.MkdirTemp("", "kueuebot-image-")
	if err != nil {
		return v1.Hash{}, err
	}
	defer os.RemoveAll(tmp)
	for _, p := range o.platforms {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok {
			return v1.Hash{}, fmt.Errorf("platform %q: want GOOS/GOARCH", p)
		}
		bin := filepath.Join(tmp, goos+"-"+goarch)
		if err := rootfs.BuildBinary(ctx, o.repo, o.version, goos, goarch, bin); err != nil {
			return v1.Hash{}, err
		}
		img, err := o.image(bin, goos, goarch, created)
		if err != nil {
			return v1.Hash{}, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: goarch}},
		})
	}
	if err := os.RemoveAll(o.out); err != nil {
		return v1.Hash{}, err
	}
	path, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := path.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": o.version})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// image is one platform's image: one layer holding rootfs.Files, the
// config running the binary as the nonroot user.
func (o *buildOptions) image(bin, goos, goarch string, created time.Time) (v1.Image, error) {
	b, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files, err := rootfs.Files(b)
	if err != nil {
		return nil, err
	}
	tarBytes, err := tarFiles(files, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: created}, CreatedBy: "hack/image: kueuebot " + o.version + ", CA bundle, passwd",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = goos, goarch, v1.Time{Time: created}
	cf.Config.User = rootfs.User
	cf.Config.Entrypoint = rootfs.Entrypoint
	cf.Config.Cmd = nil
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":   "kueuebot",
		"org.opencontainers.image.version": o.version,
		"org.opencontainers.image.source":  source,
	}
	return mutate.ConfigFile(img, cf)
}

// tarFiles writes files as a tar stream, every entry owned by root and
// stamped with the same time, so the same binary gives the same layer.
func tarFiles(files []rootfs.File, mtime time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		name := strings.TrimPrefix(f.Path, "/")
		h := &tar.Header{Name: name, Mode: int64(f.Mode.Perm()), ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		if f.Mode.IsDir() {
			h.Typeflag, h.Name = tar.TypeDir, name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// push uploads the layout's image index to ref, with the credentials of
// the Docker config (docker login, credential helpers).
func push(ctx context.Context, dir, ref string, opts ...remote.Option) (v1.Hash, error) {
	tag, err := name.ParseReference(ref)
	if err != nil {
		return v1.Hash{}, err
	}
	path, err := layout.FromPath(dir)
	if err != nil {
		return v1.Hash{}, err
	}
	top, err := path.ImageIndex()
	if err != nil {
		return v1.Hash{}, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return v1.Hash{}, err
	}
	if len(m.Manifests) != 1 {
		return v1.Hash{}, fmt.Errorf("%s holds %d entries, want the one image index build writes", dir, len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return v1.Hash{}, err
	}
	opts = append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if err := remote.WriteIndex(tag, idx, opts...); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}
