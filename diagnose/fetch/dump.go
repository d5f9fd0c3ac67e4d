package fetch

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Dump is a set of objects loaded once from files, so that many targets
// can be diagnosed without reading the files again (the chat demo, or
// several questions about one dump).
type Dump struct{ st *store }

// LoadFiles loads paths as FromFiles does.
func LoadFiles(paths []string) (*Dump, error) {
	st, err := loadPaths(paths)
	if err != nil {
		return nil, err
	}
	return &Dump{st: st}, nil
}

// LoadFS loads every *.yaml, *.yml and *.json file of fsys (recursively, in
// sorted order), e.g. an embedded set of scenario dumps.
func LoadFS(fsys fs.FS) (*Dump, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(path.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	st := &store{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		if err := st.load(f, data); err != nil {
			return nil, err
		}
	}
	return &Dump{st: st}, nil
}

// Snapshot builds the Snapshot for t from the dump, by the same rules as
// FromFiles.
func (d *Dump) Snapshot(t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	return collect(context.Background(), &storeSource{st: d.st}, t, now)
}
