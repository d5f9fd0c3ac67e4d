package fetch

import (
	"io/fs"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Dump is a set of objects loaded once from files, so that many targets
// can be diagnosed without reading the files again (the chat demo, or
// several questions about one dump). It is a Store filled from files.
type Dump struct{ st *Store }

// LoadFiles loads paths into a new Store (Store.AddFiles: files or folders
// of `kubectl get -o json|yaml` output; JSON loads fastest).
func LoadFiles(paths []string) (*Dump, error) {
	st := NewStore()
	if err := st.AddFiles(paths...); err != nil {
		return nil, err
	}
	return &Dump{st: st}, nil
}

// LoadFS loads every *.yaml, *.yml and *.json file of fsys (recursively, in
// sorted order), e.g. an embedded set of scenario dumps.
func LoadFS(fsys fs.FS) (*Dump, error) {
	st := NewStore()
	if err := st.AddFS(fsys); err != nil {
		return nil, err
	}
	return &Dump{st: st}, nil
}

// Store returns the store the dump was loaded into.
func (d *Dump) Store() *Store { return d.st }

// Snapshot builds the Snapshot for t from the dump (Store.Snapshot).
func (d *Dump) Snapshot(t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	return d.st.Snapshot(t, now)
}
