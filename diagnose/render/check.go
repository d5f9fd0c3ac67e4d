package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// WriteCheck renders a check report in format f to w, in English.
func WriteCheck(w io.Writer, f Format, r *diagnose.CheckReport) error {
	return WriteCheckWith(w, f, r, Options{})
}

// WriteCheckWith renders a check report in format f to w with o: text and
// Markdown in o.Lang; JSON is the contract and stays English.
func WriteCheckWith(w io.Writer, f Format, r *diagnose.CheckReport, o Options) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case Markdown:
		_, err := io.WriteString(w, CheckMarkdownWith(r, o))
		return err
	default:
		_, err := io.WriteString(w, CheckTextWith(r, o))
		return err
	}
}

// fitWords says a Fit for people.
func fitWords(l i18n.Lang, f diagnose.Fit) string {
	switch f {
	case diagnose.FitAdmittedNow:
		return tr(l, "render.check.fit.now")
	case diagnose.FitWaits:
		return tr(l, "render.check.fit.waits")
	case diagnose.FitNever:
		return tr(l, "render.check.fit.never")
	}
	return tr(l, "render.check.fit.unknown")
}

// estimateText is the estimate, or "no estimate".
func estimateText(l i18n.Lang, e *diagnose.Estimate) string {
	if e == nil {
		return tr(l, "render.check.noEstimate")
	}
	return e.PhraseIn(l)
}

func resources(rl corev1.ResourceList) string {
	if len(rl) == 0 {
		return none
	}
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(rl)) {
		parts = append(parts, q(rl[r])+" "+string(r))
	}
	return strings.Join(parts, ", ")
}

// CheckText renders the check report for a terminal, in English.
func CheckText(r *diagnose.CheckReport) string { return CheckTextWith(r, Options{}) }

// CheckTextWith is CheckText in o.Lang.
func CheckTextWith(r *diagnose.CheckReport, o Options) string {
	l := o.Lang
	var b bytes.Buffer
	tw := newTable(&b)
	if r.Cluster != "" {
		fmt.Fprintf(tw, "%s\t%s\n", label(l, "render.label.cluster"), r.Cluster)
	}
	fmt.Fprintf(tw, "%s%s\t%s\n", orNone(r.Target.Kind), colon(l), tr(l, "render.check.notSubmitted", i18n.Verbatim(orNone(r.Target.Namespace)+"/"+orNone(r.Target.Name))))
	for _, q := range r.Queues {
		fmt.Fprintf(tw, "%sLocalQueue %s%s\t%s\n", checkCluster(r, q), q.LocalQueue, colon(l), fitWords(l, q.Fit))
	}
	_ = tw.Flush()
	for _, c := range r.Clusters {
		if c.Error != "" {
			fmt.Fprintf(&b, "%s\n", tr(l, "render.cluster.noAnswer", i18n.Verbatim(c.Cluster), i18n.Verbatim(c.ErrorIn(l))))
		}
	}
	for _, n := range r.NotesIn(l) {
		fmt.Fprintf(&b, "\n%s\n", wrapL(l, n, 100, ""))
	}

	b.WriteString("\n" + label(l, "render.check.podSets") + "\n")
	if len(r.PodSets) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = newTable(&b)
		fmt.Fprintln(tw, tr(l, "render.check.podSets.header"))
		for _, p := range r.PodSets {
			minCount := none
			if p.MinCount != nil {
				minCount = fmt.Sprint(*p.MinCount)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", p.Name, p.Count, minCount, resources(p.PerPod), resources(p.Total))
		}
		_ = tw.Flush()
	}
	adj := r.Adjustments
	for _, s := range adj.LimitRangeDefaultsIn(l) {
		fmt.Fprintf(&b, "  %s %s\n", label(l, "render.check.lrDefault"), wrapL(l, s, 96, "    "))
	}
	for _, s := range adj.OverheadIn(l) {
		fmt.Fprintf(&b, "  %s %s\n", label(l, "render.check.overhead"), s)
	}
	for _, s := range adj.UnknownRuntimeClasses {
		fmt.Fprintf(&b, "  %s\n", tr(l, "render.check.unknownRC", i18n.Obj("RuntimeClass", "", s)))
	}

	for _, qc := range r.Queues {
		fmt.Fprintf(&b, "\n== %sLocalQueue %s (ClusterQueue %s)%s %s ==\n", checkCluster(r, qc), qc.LocalQueue, orNone(qc.ClusterQueue), colon(l), fitWords(l, qc.Fit))
		fmt.Fprintf(&b, "%s\n", wrapL(l, qc.HeadlineIn(l), 100, ""))
		if d := qc.DetailIn(l); d != "" {
			fmt.Fprintf(&b, "%s\n", wrapL(l, d, 100, ""))
		}
		if qc.Fit == diagnose.FitWaits {
			fmt.Fprintf(&b, "%s %s\n", label(l, "render.label.estimate"), estimateText(l, qc.Estimate))
		}
		if len(qc.Quota) > 0 {
			b.WriteString("\n" + label(l, "render.section.quota") + "\n")
			tw = newTable(&b)
			fmt.Fprintln(tw, tr(l, "render.check.quota.header"))
			for _, row := range qc.Quota {
				flavor := row.Flavor
				if !row.Eligible {
					flavor += tr(l, "render.ineligible")
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.PodSet, flavor, row.Resource, q(row.Requested), q(row.Nominal),
					qp(row.BorrowingLimit), q(row.Reserved), q(row.Available), q(row.MaxCapacity), yesNo(l, row.FitsNow), yesNo(l, row.FitsEver))
			}
			_ = tw.Flush()
			b.WriteString(ineligibleNotes(qc.Quota, l))
		}
		if len(qc.Remedies) > 0 {
			b.WriteString("\n" + label(l, "render.section.remedies") + "\n")
			for i, m := range qc.Remedies {
				fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, whoIn(l, m.Who), wrapL(l, m.SummaryIn(l), 96, "     "))
				if m.Command != "" {
					fmt.Fprintf(&b, "     $ %s\n", m.Command)
				}
			}
		}
		for _, f := range qc.Findings {
			fmt.Fprintf(&b, "  %s%s %s\n", severityIn(l, f.Severity), colon(l), wrapL(l, f.MessageIn(l), 96, "    "))
		}
		for _, g := range qc.Gaps {
			fmt.Fprintf(&b, "  %s\n", tr(l, "render.check.couldNotRead", i18n.Name(g.Kind), i18n.Name(orNone(g.Name)), i18n.Name(string(g.Reason)), i18n.Verbatim(gapHint(l, g.Reason))))
		}
	}
	if len(r.Gaps) > 0 {
		b.WriteString("\n" + label(l, "render.section.gaps") + "\n")
		for _, g := range r.Gaps {
			fmt.Fprintf(&b, "  %s %s%s %s (%s)\n", g.Kind, orNone(g.Name), colon(l), g.Reason, gapHint(l, g.Reason))
		}
	}
	return b.String()
}

// CheckMarkdown renders the check report as GitHub-flavoured Markdown, in
// English.
func CheckMarkdown(r *diagnose.CheckReport) string { return CheckMarkdownWith(r, Options{}) }

// CheckMarkdownWith is CheckMarkdown in o.Lang.
func CheckMarkdownWith(r *diagnose.CheckReport, o Options) string {
	l := o.Lang
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", tr(l, "render.check.md.title", i18n.Name(mdEscape(r.Target.Kind)), i18n.Verbatim("`"+r.Target.Namespace+"/"+r.Target.Name+"`")))
	if r.Cluster != "" {
		fmt.Fprintf(&b, "**%s** `%s`\n\n", tr(l, "render.label.cluster"), r.Cluster)
	}
	for _, c := range r.Clusters {
		if c.Error != "" {
			fmt.Fprintf(&b, "%s\n\n", tr(l, "render.cluster.noAnswer", i18n.Verbatim("**"+mdEscape(c.Cluster)+"**"), i18n.Verbatim(mdEscape(c.ErrorIn(l)))))
		}
	}
	for _, n := range r.NotesIn(l) {
		fmt.Fprintf(&b, "%s\n\n", mdEscape(n))
	}
	b.WriteString(tr(l, "render.check.md.podSets") + "\n|---|---:|---|---|\n")
	for _, p := range r.PodSets {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", mdEscape(p.Name), p.Count, mdEscape(resources(p.PerPod)), mdEscape(resources(p.Total)))
	}
	b.WriteString("\n")
	for _, s := range append(append(r.Adjustments.LimitRangeDefaultsIn(l), r.Adjustments.OverheadIn(l)...), unknownRC(l, r.Adjustments.UnknownRuntimeClasses)...) {
		fmt.Fprintf(&b, "- %s\n", mdEscape(s))
	}
	for _, qc := range r.Queues {
		fmt.Fprintf(&b, "\n#### %sLocalQueue `%s` (ClusterQueue `%s`)%s **%s**\n\n", checkCluster(r, qc), qc.LocalQueue, orNone(qc.ClusterQueue), colon(l), fitWords(l, qc.Fit))
		fmt.Fprintf(&b, "%s\n\n", mdEscape(qc.HeadlineIn(l)))
		if d := qc.DetailIn(l); d != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(d))
		}
		if qc.Fit == diagnose.FitWaits {
			fmt.Fprintf(&b, "**%s** %s\n\n", label(l, "render.label.estimate"), mdEscape(estimateText(l, qc.Estimate)))
		}
		for i, m := range qc.Remedies {
			fmt.Fprintf(&b, "%d. *(%s)* %s\n", i+1, whoIn(l, m.Who), mdEscape(m.SummaryIn(l)))
			if m.Command != "" {
				fmt.Fprintf(&b, "   ```\n   %s\n   ```\n", m.Command)
			}
		}
		for _, g := range qc.Gaps {
			b.WriteString(mdGap(l, g))
		}
	}
	for _, g := range r.Gaps {
		b.WriteString(mdGap(l, g))
	}
	return b.String()
}

func mdGap(l i18n.Lang, g diagnose.Gap) string {
	return tr(l, "render.check.md.couldNotCheck", i18n.Name(g.Kind), i18n.Verbatim("`"+orNone(g.Name)+"`"), i18n.Name(string(g.Reason)), i18n.Verbatim(gapHint(l, g.Reason))) + "\n"
}

func unknownRC(l i18n.Lang, names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, tr(l, "render.check.unknownRC", i18n.Obj("RuntimeClass", "", n)))
	}
	return out
}

// checkCluster names a queue's cluster when the manifest was checked in
// several ("[gpu-west] "), "" otherwise.
func checkCluster(r *diagnose.CheckReport, q diagnose.QueueCheck) string {
	if q.Cluster == "" || r.Cluster != "" {
		return ""
	}
	return "[" + q.Cluster + "] "
}
