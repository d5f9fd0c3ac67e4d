package explain

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/internal/golden"
)

// stuckScenarios are recorded scenarios whose job Kueue admitted and whose
// pods do not run, and who acts on each.
var stuckScenarios = map[string]diagnose.Code{
	"pods-unschedulable":       diagnose.CodePodsUnschedulable, // no node fits the pod
	"image-pull-backoff":       diagnose.CodePodsNotStarting,   // the image cannot be pulled
	"appwrapper-no-controller": diagnose.CodeStarting,          // no pods were created
	"pods-resourcequota":       diagnose.CodeStarting,          // the namespace's ResourceQuota refuses the pods
}

// stuckNow is after every committed scenario dump, late enough that their
// admitted workloads are past the default stuck threshold; fixed, for the
// golden files' waits.
var stuckNow = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)

// TestDigestShowsStuckAfterAdmission: over recorded scenarios, the
// admitted workloads whose pods do not run are named in the digest's
// "stuck after admission" section (with who acts and how long they have
// held their quota) in every rendering: text, Markdown, JSON and Block Kit
// (golden files); pending ones stay in their verdict groups, and a job
// admitted less than the threshold ago is not named.
func TestDigestShowsStuckAfterAdmission(t *testing.T) {
	var paths, namespaces []string
	for name := range stuckScenarios {
		paths = append(paths, filepath.Join("../deploy/examples/scenarios", name+".yaml"))
	}
	paths = append(paths, "../deploy/examples/scenarios/pods-quota.yaml", "../deploy/examples/scenarios/quota-in-use.yaml")
	slices.Sort(paths)
	for _, p := range paths {
		namespaces = append(namespaces, "sc-"+strings.TrimSuffix(filepath.Base(p), ".yaml"))
	}
	dump, err := fetch.LoadFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	l := &Listing{Store: dump.Store(), All: true}
	q := DigestQuery{Name: "stuck", Scope: digest.Scope{Namespaces: namespaces}, Options: digest.Options{TopN: 5}}
	d, err := BuildDigest(l, q, stuckNow)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*digest.Item{}
	for _, it := range d.Stuck {
		got[strings.TrimPrefix(it.Namespace, "sc-")] = it
	}
	for name, code := range stuckScenarios {
		it := got[name]
		if it == nil {
			t.Errorf("%s is not stuck after admission: %v", name, d.Stuck)
			continue
		}
		if it.Code != code || len(it.Who) == 0 || it.Wait <= d.StuckAfter {
			t.Errorf("%s: stuck as %s, who %v, for %s; want %s, someone to act, over %s", name, it.Code, it.Who, it.Wait, code, d.StuckAfter)
		}
	}
	// quota-in-use's admitted blocker never started its containers either
	// (the sandbox's nodes run no containers): it is named too.
	for _, it := range d.Stuck {
		if !digest.Stuck(it.Code) {
			t.Errorf("%s named as stuck with %s", it.Ref(), it.Code)
		}
	}
	if len(d.Stuck) != len(stuckScenarios)+1 || d.Totals.Stuck != len(d.Stuck) {
		t.Errorf("%d stuck (total %d), want %d", len(d.Stuck), d.Totals.Stuck, len(stuckScenarios)+1)
	}
	if d.Totals.Pending == 0 || len(d.NeedsAction) == 0 {
		t.Errorf("the pending scenarios are missing: %+v", d.Totals)
	}

	// A threshold longer than they have been admitted names none of them.
	q.Options.StuckAfter = 29 * 24 * time.Hour
	if later, err := BuildDigest(l, q, stuckNow); err != nil || len(later.Stuck) != 0 {
		t.Errorf("with stuckAfter %s: %d stuck, %v", q.Options.StuckAfter, len(later.Stuck), err)
	}

	for _, f := range []struct {
		format render.Format
		file   string
	}{{render.Text, "stuck.txt"}, {render.Markdown, "stuck.md"}, {render.JSON, "stuck.json"}} {
		var b bytes.Buffer
		if err := render.WriteDigest(&b, f.format, d); err != nil {
			t.Fatal(err)
		}
		if f.format != render.JSON && !strings.Contains(b.String(), "Stuck after admission") {
			t.Errorf("%s lacks the stuck section:\n%s", f.file, b.String())
		}
		golden.Check(t, filepath.Join("testdata", "digest", f.file), b.Bytes())
	}
	main, replies := blocks.DigestMessages(d, "kueuebot digest --name stuck -o json")
	var text strings.Builder
	text.WriteString(blocks.Text(main.Blocks))
	for _, r := range replies {
		text.WriteString("\n--- thread ---\n" + blocks.Text(r.Blocks))
	}
	if !strings.Contains(text.String(), "Stuck after admission") {
		t.Errorf("the Slack message lacks the stuck section:\n%s", text.String())
	}
	golden.Check(t, filepath.Join("testdata", "digest", "stuck.blocks.txt"), []byte(text.String()))
	all, err := json.MarshalIndent(map[string]any{"message": main, "thread": replies}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "digest", "stuck.blocks.json"), append(all, '\n'))
}
