package diagnose_test

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
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestCasesInEachLanguage renders every fixture's answer in French,
// Japanese and Chinese, as text (render) and as Block Kit (bot/blocks),
// and compares each with its golden file (go test -update rewrites them):
// testdata/golden/LANG/NAME.txt and NAME.blocks.json. The answer must hold
// no English prose once verbatim text (object names, quantities, commands,
// Kueue's quoted messages, evidence) is set aside, and the JSON contract
// (English) must not depend on the language.
func TestCasesInEachLanguage(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			_, s := loadCase(t, path)
			r := diagnose.Analyze(s)
			var before bytes.Buffer
			if err := render.WriteJSON(&before, &r); err != nil {
				t.Fatal(err)
			}
			checkMessages(t, &r)
			verbatim := reportVerbatims(&r)
			for _, l := range i18n.All()[1:] {
				txt := render.TextStringWith(&r, render.Options{Lang: l})
				golden(t, filepath.Join("testdata", "golden", l.String(), name+".txt"), []byte(txt))
				msg := blocks.Answer(r, blocks.AnswerOptions{Options: blocks.Options{Lang: l}, Detailed: true})
				js, err := json.MarshalIndent(msg.Blocks, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", "golden", l.String(), name+".blocks.json"), append(js, '\n'))
				answer := answerText(&r, l)
				blockText := untruncated(blocks.Text(msg.Blocks))
				i18ntest.AssertTranslated(t, l, answer, verbatim...)
				i18ntest.AssertTranslated(t, l, blockText, verbatim...)
			}
			var after bytes.Buffer
			if err := render.WriteJSON(&after, &r); err != nil {
				t.Fatal(err)
			}
			if before.String() != after.String() {
				t.Error("rendering in other languages changed the JSON contract")
			}
		})
	}
}

// untruncated drops the lines Block Kit cut short ("…", the header's
// 150 characters): a quoted message cut in two is no longer the verbatim
// text the check sets aside, and the whole line is in answerText.
func untruncated(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasSuffix(l, "…") }), "\n")
}

// answerText is what a user reads of the diagnosis proper in l: headline,
// detail, remedies and findings.
func answerText(r *diagnose.Report, l i18n.Lang) string {
	parts := []string{r.Verdict.HeadlineIn(l), r.Verdict.DetailIn(l)}
	for _, m := range r.Remedies {
		parts = append(parts, m.SummaryIn(l))
	}
	for _, f := range r.Findings {
		parts = append(parts, f.MessageIn(l))
	}
	for _, q := range r.Quota {
		if !q.IneligibleMsg.IsZero() {
			parts = append(parts, q.IneligibleMsg.In(l))
		}
	}
	return strings.Join(parts, "\n")
}

// checkMessages: every catalog message of the report matches its entry's
// declaration, and its English is the report's English text.
func checkMessages(t *testing.T, r *diagnose.Report) {
	t.Helper()
	check := func(m i18n.Message, english string) {
		if m.IsZero() {
			return
		}
		i18ntest.CheckMessage(t, m)
		if m.String() != english {
			t.Errorf("message %s renders %q in English, the report says %q", m.ID, m.String(), english)
		}
	}
	check(r.Verdict.HeadlineMsg, r.Verdict.Headline)
	check(r.Verdict.DetailMsg, r.Verdict.Detail)
	for _, m := range r.Remedies {
		check(m.SummaryMsg, m.Summary)
	}
	for _, f := range r.Findings {
		check(f.Msg, f.Message)
	}
}

// reportVerbatims is what stays as it is in every language: the
// arguments of the report's messages that render verbatim, commands,
// evidence, names and quantities of the quota table, gaps and codes.
func reportVerbatims(r *diagnose.Report) []string {
	var out []string
	add := func(m i18n.Message) { out = append(out, m.Verbatims()...) }
	add(r.Verdict.HeadlineMsg)
	add(r.Verdict.DetailMsg)
	for _, m := range r.Remedies {
		add(m.SummaryMsg)
		out = append(out, m.Command)
	}
	for _, f := range r.Findings {
		add(f.Msg)
	}
	for _, q := range r.Quota {
		add(q.IneligibleMsg)
		out = append(out, q.PodSet, q.Flavor, q.Resource)
	}
	for _, e := range r.Evidence {
		out = append(out, e.Message, e.Reason, e.Source)
	}
	for _, g := range r.Gaps {
		out = append(out, g.Kind, g.Name, g.Message)
	}
	// Kubernetes field names that the translations keep as they are.
	out = append(out, "requests", "limits")
	out = append(out, r.Target.Name, r.Target.Workload, r.Queue.LocalQueue, r.Queue.ClusterQueue, string(r.Verdict.Code), string(r.Verdict.Cause))
	return slices.DeleteFunc(out, func(s string) bool { return strings.TrimSpace(s) == "" })
}

// BenchmarkRender renders fixtures' answers (text and Block Kit) in each
// language; the goal is at most 10% over English.
func BenchmarkRender(b *testing.B) {
	for _, name := range []string{"exceeds-max-quota", "quota-in-use-cohort", "multi-podset-exceeds-max-quota", "requeuing-preempted"} {
		_, s := loadCase(b, filepath.Join("testdata", "cases", name+".txtar"))
		r := diagnose.Analyze(s)
		for _, l := range i18n.All() {
			b.Run(name+"/text/"+l.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = render.TextStringWith(&r, render.Options{Lang: l})
				}
			})
			b.Run(name+"/blocks/"+l.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = blocks.Answer(r, blocks.AnswerOptions{Options: blocks.Options{Lang: l}, Detailed: true})
				}
			})
		}
	}
}

// BenchmarkRenderInterleaved renders the same answers in the four
// languages in turn within each iteration and reports each language's time
// as a percentage of English's (fr-%, ja-%, zh-%): interleaving keeps the
// comparison fair on a machine whose load changes during the run.
func BenchmarkRenderInterleaved(b *testing.B) {
	var reports []diagnose.Report
	for _, name := range []string{"exceeds-max-quota", "quota-in-use-cohort", "multi-podset-exceeds-max-quota", "requeuing-preempted", "untolerated-taint", "strict-fifo-blocked"} {
		_, s := loadCase(b, filepath.Join("testdata", "cases", name+".txtar"))
		reports = append(reports, diagnose.Analyze(s))
	}
	langs := i18n.All()
	spent := make([]time.Duration, len(langs))
	for b.Loop() {
		for i, l := range langs {
			start := time.Now()
			for j := range reports {
				_ = render.TextStringWith(&reports[j], render.Options{Lang: l})
				_ = blocks.Answer(reports[j], blocks.AnswerOptions{Options: blocks.Options{Lang: l}, Detailed: true})
			}
			spent[i] += time.Since(start)
		}
	}
	for i, l := range langs[1:] {
		b.ReportMetric(100*float64(spent[i+1])/float64(spent[0]), l.String()+"-%")
	}
}
