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

// List implements Lister: the dump's store, of which only the identity's
// configured namespaces are readable (every namespace asked, or all of them
// when none is, when Unrestricted), as RBAC would have it.
func (d *DumpReader) List(_ context.Context, id rbac.Identity, namespaces []string) (Listing, error) {
	l := Listing{Store: d.Dump.Store(), All: d.Unrestricted && len(namespaces) == 0}
	if len(namespaces) == 0 {
		namespaces = id.Namespaces
	}
	for _, ns := range namespaces {
		if d.Unrestricted || slices.Contains(id.Namespaces, ns) {
			l.Namespaces = append(l.Namespaces, ns)
		}
	}
	return l, nil
}

// JobNames implements JobNamer from the dump's Workloads of the readable
// namespaces.
func (d *DumpReader) JobNames(ctx context.Context, id rbac.Identity, namespaces []string) (map[string]bool, error) {
	l, err := d.List(ctx, id, namespaces)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, ns := range l.Namespaces {
		for _, wl := range l.Store.WorkloadsIn(ns) {
			names[wl.Name] = true
			for _, o := range wl.OwnerReferences {
				names[o.Name] = true
			}
		}
	}
	return names, nil
}
