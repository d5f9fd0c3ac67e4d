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

// WriteCheck renders a check report in format f to w.
func WriteCheck(w io.Writer, f Format, r *diagnose.CheckReport) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case Markdown:
		_, err := io.WriteString(w, CheckMarkdown(r))
		return err
	default:
		_, err := io.WriteString(w, CheckText(r))
		return err
	}
}

// fitWords says a Fit for people.
func fitWords(f diagnose.Fit) string {
	switch f {
	case diagnose.FitAdmittedNow:
		return "admitted now"
	case diagnose.FitWaits:
		return "waits"
	case diagnose.FitNever:
		return "never, as it is"
	}
	return "unknown"
}

// estimateText is the estimate, or "no estimate".
func estimateText(e *diagnose.Estimate) string {
	if e == nil {
		return "no estimate"
	}
	return e.Phrase()
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

// CheckText renders the check report for a terminal.
func CheckText(r *diagnose.CheckReport) string {
	var b bytes.Buffer
	tw := newTable(&b)
	fmt.Fprintf(tw, "%s:\t%s/%s (not submitted)\n", orNone(r.Target.Kind), orNone(r.Target.Namespace), orNone(r.Target.Name))
	for _, q := range r.Queues {
		fmt.Fprintf(tw, "LocalQueue %s:\t%s\n", q.LocalQueue, fitWords(q.Fit))
	}
	_ = tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n%s\n", wrap(n, 100, ""))
	}

	b.WriteString("\nPod sets (as Kueue would count them):\n")
	if len(r.PodSets) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = newTable(&b)
		fmt.Fprintln(tw, "  POD SET\tCOUNT\tMIN COUNT\tPER POD\tTOTAL")
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
	for _, s := range adj.LimitRangeDefaults {
		fmt.Fprintf(&b, "  LimitRange default: %s\n", wrap(s, 96, "    "))
	}
	for _, s := range adj.Overhead {
		fmt.Fprintf(&b, "  Overhead: %s\n", s)
	}
	for _, s := range adj.UnknownRuntimeClasses {
		fmt.Fprintf(&b, "  RuntimeClass %s could not be read: its pod overhead is not counted.\n", s)
	}

	for _, qc := range r.Queues {
		fmt.Fprintf(&b, "\n== LocalQueue %s (ClusterQueue %s): %s ==\n", qc.LocalQueue, orNone(qc.ClusterQueue), fitWords(qc.Fit))
		fmt.Fprintf(&b, "%s\n", wrap(qc.Headline, 100, ""))
		if qc.Detail != "" {
			fmt.Fprintf(&b, "%s\n", wrap(qc.Detail, 100, ""))
		}
		if qc.Fit == diagnose.FitWaits {
			fmt.Fprintf(&b, "Estimated start: %s\n", estimateText(qc.Estimate))
		}
		if len(qc.Quota) > 0 {
			b.WriteString("\nQuota:\n")
			tw = newTable(&b)
			fmt.Fprintln(tw, "  POD SET\tFLAVOR\tRESOURCE\tREQUESTED\tNOMINAL\tBORROW LIMIT\tRESERVED\tAVAILABLE\tMAX\tFITS NOW\tFITS EVER")
			for _, row := range qc.Quota {
				flavor := row.Flavor
				if !row.Eligible {
					flavor += " (ineligible)"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.PodSet, flavor, row.Resource, q(row.Requested), q(row.Nominal),
					qp(row.BorrowingLimit), q(row.Reserved), q(row.Available), q(row.MaxCapacity), yesNo(i18n.English, row.FitsNow), yesNo(i18n.English, row.FitsEver))
			}
			_ = tw.Flush()
			b.WriteString(ineligibleNotes(qc.Quota, i18n.English))
		}
		if len(qc.Remedies) > 0 {
			b.WriteString("\nRemedies:\n")
			for i, m := range qc.Remedies {
				fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, m.Who, wrap(m.Summary, 96, "     "))
				if m.Command != "" {
					fmt.Fprintf(&b, "     $ %s\n", m.Command)
				}
			}
		}
		for _, f := range qc.Findings {
			fmt.Fprintf(&b, "  %s: %s\n", f.Severity, wrap(f.Message, 96, "    "))
		}
		for _, g := range qc.Gaps {
			fmt.Fprintf(&b, "  Could not read %s %s: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(i18n.English, g.Reason))
		}
	}
	if len(r.Gaps) > 0 {
		b.WriteString("\nGaps:\n")
		for _, g := range r.Gaps {
			fmt.Fprintf(&b, "  %s %s: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(i18n.English, g.Reason))
		}
	}
	return b.String()
}

// CheckMarkdown renders the check report as GitHub-flavoured Markdown.
func CheckMarkdown(r *diagnose.CheckReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Will %s `%s/%s` fit?\n\n", mdEscape(r.Target.Kind), r.Target.Namespace, r.Target.Name)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s\n\n", mdEscape(n))
	}
	b.WriteString("| Pod set | Count | Per pod | Total |\n|---|---:|---|---|\n")
	for _, p := range r.PodSets {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", mdEscape(p.Name), p.Count, mdEscape(resources(p.PerPod)), mdEscape(resources(p.Total)))
	}
	b.WriteString("\n")
	for _, s := range append(append(slices.Clone(r.Adjustments.LimitRangeDefaults), r.Adjustments.Overhead...), unknownRC(r.Adjustments.UnknownRuntimeClasses)...) {
		fmt.Fprintf(&b, "- %s\n", mdEscape(s))
	}
	for _, qc := range r.Queues {
		fmt.Fprintf(&b, "\n#### LocalQueue `%s` (ClusterQueue `%s`): **%s**\n\n", qc.LocalQueue, orNone(qc.ClusterQueue), fitWords(qc.Fit))
		fmt.Fprintf(&b, "%s\n\n", mdEscape(qc.Headline))
		if qc.Detail != "" {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(qc.Detail))
		}
		if qc.Fit == diagnose.FitWaits {
			fmt.Fprintf(&b, "**Estimated start:** %s\n\n", mdEscape(estimateText(qc.Estimate)))
		}
		for i, m := range qc.Remedies {
			fmt.Fprintf(&b, "%d. *(%s)* %s\n", i+1, m.Who, mdEscape(m.Summary))
			if m.Command != "" {
				fmt.Fprintf(&b, "   ```\n   %s\n   ```\n", m.Command)
			}
		}
		for _, g := range qc.Gaps {
			fmt.Fprintf(&b, "- Could not check %s `%s`: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(i18n.English, g.Reason))
		}
	}
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "- Could not check %s `%s`: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(i18n.English, g.Reason))
	}
	return b.String()
}

func unknownRC(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, "RuntimeClass "+n+" could not be read: its pod overhead is not counted.")
	}
	return out
}
