package explain

import (
	"context"
	"slices"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// DumpReader reads a loaded dump (the chat demo, a training bot, a platform
// team replaying a cluster dump). It stands in for RBAC by looking only in
// the identity's configured namespaces: a namespace outside them reads as
// empty, as a Forbidden read would.
type DumpReader struct {
	// Dump holds the objects. Required.
	Dump *fetch.Dump
	// Now is the snapshot time; time.Now when nil.
	Now func() time.Time
	// Unrestricted reads every namespace of the dump, for whoever asks:
	// the CLI reading a dump its user was given. Off, only the identity's
	// configured namespaces are read.
	Unrestricted bool
}

// Namespaces implements Reader.
func (d *DumpReader) Namespaces(_ context.Context, id rbac.Identity, explicit string) (rbac.Namespaces, error) {
	if explicit != "" {
		return rbac.Namespaces{Names: []string{explicit}, Source: rbac.SourceExplicit}, nil
	}
	return rbac.Namespaces{Names: slices.Clone(id.Namespaces), Source: rbac.SourceConfigured}, nil
}

// Snapshot implements Reader.
func (d *DumpReader) Snapshot(_ context.Context, id rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	now := clock(d.Now)
	if !d.Unrestricted && !slices.Contains(id.Namespaces, t.Namespace) {
		// As RBAC would: a namespace the user may not read looks empty.
		return &diagnose.Snapshot{Now: now, Target: t}, nil
	}
	return d.Dump.Snapshot(t, now)
}
