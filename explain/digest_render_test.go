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
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
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

// TestDigestInEachLanguage: the same digest in French, Japanese and
// Chinese (text, Markdown and the Slack messages; golden files under
// testdata/digest/LANG) holds no English prose once verdict codes, causes,
// names, quantities and commands are set aside, and its JSON is the
// English one.
func TestDigestInEachLanguage(t *testing.T) {
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
	d, err := BuildDigest(l, DigestQuery{Name: "stuck", Scope: digest.Scope{Namespaces: namespaces}, Options: digest.Options{TopN: 5}}, stuckNow)
	if err != nil {
		t.Fatal(err)
	}
	var verbatim []string
	for _, it := range append(append(append([]*digest.Item(nil), d.Stuck...), d.NeedsAction...), d.LongWaits...) {
		verbatim = append(verbatim, it.RemedyMsg.Verbatims()...)
		if it.RemedyMsg.IsZero() && it.Remedy != "" {
			// Package diagnose builds every remedy through the catalog.
			t.Errorf("%s: remedy %q has no message", it.Ref(), it.Remedy)
		}
	}
	for _, g := range d.Groups {
		for _, it := range g.Workloads {
			verbatim = append(verbatim, it.Verdict(), string(it.Code))
		}
	}
	var enJSON bytes.Buffer
	if err := render.WriteDigest(&enJSON, render.JSON, d); err != nil {
		t.Fatal(err)
	}
	for _, lang := range i18n.All()[1:] {
		t.Run(lang.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", "digest", lang.String())
			for _, f := range []struct {
				format render.Format
				file   string
			}{{render.Text, "stuck.txt"}, {render.Markdown, "stuck.md"}, {render.JSON, ""}} {
				var b bytes.Buffer
				if err := render.WriteDigestWith(&b, f.format, d, render.Options{Lang: lang}); err != nil {
					t.Fatal(err)
				}
				if f.format == render.JSON {
					if b.String() != enJSON.String() {
						t.Errorf("the JSON digest differs in %s", lang)
					}
					continue
				}
				// The text wraps long lines: compare with the words of each
				// verbatim text, whatever the line breaks.
				flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
				var vs []string
				for _, v := range verbatim {
					vs = append(vs, flat(v))
				}
				i18ntest.AssertTranslated(t, lang, flat(b.String()), vs...)
				golden.Check(t, filepath.Join(dir, f.file), b.Bytes())
			}
			main, replies := blocks.DigestMessagesIn(lang, d, "kueuebot digest --name stuck -o json")
			var text strings.Builder
			text.WriteString(blocks.Text(main.Blocks) + "\n" + main.Text)
			for _, r := range replies {
				text.WriteString("\n--- thread ---\n" + blocks.Text(r.Blocks))
			}
			i18ntest.AssertTranslated(t, lang, text.String(), verbatim...)
			golden.Check(t, filepath.Join(dir, "stuck.blocks.txt"), []byte(text.String()))
		})
	}
}
