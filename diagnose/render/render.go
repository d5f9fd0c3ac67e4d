package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Format is an output format.
type Format string

// Formats.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat validates a user-supplied format name.
func ParseFormat(s string) (Format, error) {
	switch Format(strings.ToLower(s)) {
	case Text, "":
		return Text, nil
	case Markdown, "md":
		return Markdown, nil
	case JSON:
		return JSON, nil
	}
	return "", fmt.Errorf("unknown output format %q: use text, markdown or json", s)
}

// Write renders r in format f to w.
func Write(w io.Writer, f Format, r *diagnose.Report) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case Markdown:
		_, err := io.WriteString(w, MarkdownString(r))
		return err
	default:
		_, err := io.WriteString(w, TextString(r))
		return err
	}
}

// WriteJSON writes the report's JSON contract, indented, with a final newline.
func WriteJSON(w io.Writer, r *diagnose.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

const none = "<none>"

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

func q(x resource.Quantity) string { return diagnose.FormatQuantity(x) }

func qp(x *resource.Quantity) string {
	if x == nil {
		return none
	}
	return diagnose.FormatQuantity(*x)
}

func pos(p *int32) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%d", *p+1)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TextString renders the report like kubectl describe: labelled fields,
// explicit <none>, aligned tables.
func TextString(r *diagnose.Report) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	if r.Cluster != "" {
		fmt.Fprintf(tw, "Cluster:\t%s\n", r.Cluster)
	}
	fmt.Fprintf(tw, "%s:\t%s/%s\n", orNone(r.Target.Kind), orNone(r.Target.Namespace), orNone(r.Target.Name))
	fmt.Fprintf(tw, "Workload:\t%s\n", orNone(r.Target.Workload))
	lq := orNone(r.Queue.LocalQueue)
	if r.Queue.PositionInLocalQueue != nil {
		lq += fmt.Sprintf(" (position %s)", pos(r.Queue.PositionInLocalQueue))
	}
	cq := orNone(r.Queue.ClusterQueue)
	if r.Queue.PositionInClusterQueue != nil {
		cq += fmt.Sprintf(" (position %s)", pos(r.Queue.PositionInClusterQueue))
	}
	fmt.Fprintf(tw, "LocalQueue:\t%s\n", lq)
	fmt.Fprintf(tw, "ClusterQueue:\t%s\n", cq)
	v := r.Verdict
	code := string(v.Code)
	if v.Cause != "" {
		code += "/" + string(v.Cause)
	}
	fmt.Fprintf(tw, "Verdict:\t%s (stage %s)\n", code, v.Stage)
	_ = tw.Flush()
	fmt.Fprintf(&b, "\n%s\n", v.Headline)
	if v.Detail != "" {
		fmt.Fprintf(&b, "%s\n", wrap(v.Detail, 100, ""))
	}
	b.WriteString(clustersText(r))
	if e := r.Estimate; e != nil {
		fmt.Fprintf(&b, "\nEstimated start: %s\n", wrap(e.Phrase(), 100, "  "))
		if e.Basis != "" {
			fmt.Fprintf(&b, "Based on: %s\n", wrap(e.Basis, 100, "  "))
		}
	}

	b.WriteString("\nQuota:\n")
	if len(r.Quota) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  POD SET\tFLAVOR\tRESOURCE\tREQUESTED\tNOMINAL\tBORROW LIMIT\tLEND LIMIT\tRESERVED\tAVAILABLE\tMAX\tFITS NOW\tFITS EVER\tSHORT BY")
		for _, row := range r.Quota {
			flavor := row.Flavor
			if !row.Eligible {
				flavor += " (ineligible)"
			}
			avail, maxc := q(row.Available), q(row.MaxCapacity)
			if row.Partial {
				avail, maxc = avail+"+", maxc+"+"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				row.PodSet, flavor, row.Resource, q(row.Requested), q(row.Nominal), qp(row.BorrowingLimit), qp(row.LendingLimit),
				q(row.Reserved), avail, maxc, yesNo(row.FitsNow), yesNo(row.FitsEver), qp(row.ShortBy))
		}
		_ = tw.Flush()
		b.WriteString(ineligibleNotes(r.Quota))
	}

	b.WriteString("\nRemedies:\n")
	if len(r.Remedies) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for i, m := range r.Remedies {
		fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, m.Who, wrap(m.Summary, 96, "     "))
		if m.Command != "" {
			fmt.Fprintf(&b, "     $ %s\n", m.Command)
		}
	}

	b.WriteString("\nFindings:\n")
	if len(r.Findings) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s: %s\n", f.Severity, wrap(f.Message, 96, "    "))
	}

	b.WriteString("\nGaps:\n")
	if len(r.Gaps) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "  %s %s: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(g.Reason))
	}
	if r.ClusterScopedByBot {
		fmt.Fprintf(&b, "  (ClusterQueue %s and its flavors were read by kueuebot on your behalf)\n", r.Queue.ClusterQueue)
	}

	b.WriteString("\nEvidence:\n")
	if len(r.Evidence) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tSOURCE\tREASON\tAGE\tMESSAGE")
		for _, e := range r.Evidence {
			age := orNone(e.Age)
			if e.Count > 1 {
				age = fmt.Sprintf("%s (x%d over %s)", age, e.Count, e.Span)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", e.Kind, e.Source, orNone(e.Reason), age, orNone(oneLine(e.Message)))
		}
		_ = tw.Flush()
	}
	b.WriteString(workersText(r))
	return b.String()
}

// MarkdownString renders the report as GitHub-flavoured Markdown, for
// tickets and chat tools other than Slack.
func MarkdownString(r *diagnose.Report) string {
	var b strings.Builder
	v := r.Verdict
	code := string(v.Code)
	if v.Cause != "" {
		code += "/" + string(v.Cause)
	}
	fmt.Fprintf(&b, "### %s\n\n", mdEscape(v.Headline))
	fmt.Fprintf(&b, "**Verdict:** `%s` (stage %s)  \n", code, v.Stage)
	if r.Cluster != "" {
		fmt.Fprintf(&b, "**Cluster:** `%s`  \n", r.Cluster)
	}
	for _, l := range r.Clusters {
		if l.Error != "" {
			fmt.Fprintf(&b, "**%s did not answer:** %s  \n", mdEscape(l.Cluster), mdEscape(l.Error))
		}
	}
	fmt.Fprintf(&b, "**%s:** `%s/%s`  \n", mdEscape(orNone(r.Target.Kind)), r.Target.Namespace, r.Target.Name)
	fmt.Fprintf(&b, "**Workload:** `%s`  \n", orNone(r.Target.Workload))
	fmt.Fprintf(&b, "**Queues:** LocalQueue `%s` (position %s), ClusterQueue `%s` (position %s)\n\n",
		orNone(r.Queue.LocalQueue), pos(r.Queue.PositionInLocalQueue), orNone(r.Queue.ClusterQueue), pos(r.Queue.PositionInClusterQueue))
	if e := r.Estimate; e != nil {
		fmt.Fprintf(&b, "**Estimated start:** %s", mdEscape(e.Phrase()))
		if e.Basis != "" {
			fmt.Fprintf(&b, " (based on %s)", mdEscape(e.Basis))
		}
		b.WriteString("\n\n")
	}
	if v.Detail != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEscape(v.Detail))
	}
	if len(r.Quota) > 0 {
		b.WriteString("| Pod set | Flavor | Resource | Requested | Nominal | Borrow limit | Lend limit | Reserved | Available | Max | Fits now | Fits ever | Short by |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|\n")
		for _, row := range r.Quota {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				mdEscape(row.PodSet), mdEscape(row.Flavor), mdEscape(row.Resource), q(row.Requested), q(row.Nominal), mdEscape(qp(row.BorrowingLimit)), mdEscape(qp(row.LendingLimit)),
				q(row.Reserved), q(row.Available), q(row.MaxCapacity), yesNo(row.FitsNow), yesNo(row.FitsEver), mdEscape(qp(row.ShortBy)))
		}
		b.WriteString("\n")
	}
	if len(r.Remedies) > 0 {
		b.WriteString("**What to do**\n\n")
		for i, m := range r.Remedies {
			fmt.Fprintf(&b, "%d. *(%s)* %s\n", i+1, m.Who, mdEscape(m.Summary))
			if m.Command != "" {
				fmt.Fprintf(&b, "   ```\n   %s\n   ```\n", m.Command)
			}
		}
		b.WriteString("\n")
	}
	if len(r.Findings) > 0 {
		b.WriteString("**Findings**\n\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- %s: %s\n", f.Severity, mdEscape(f.Message))
		}
		b.WriteString("\n")
	}
	if len(r.Gaps) > 0 {
		b.WriteString("**Could not check**\n\n")
		for _, g := range r.Gaps {
			fmt.Fprintf(&b, "- %s `%s`: %s (%s)\n", g.Kind, orNone(g.Name), g.Reason, gapHint(g.Reason))
		}
		b.WriteString("\n")
	}
	b.WriteString(workersMarkdown(r))
	return b.String()
}

// gapHint says who can act on a failed read.
func gapHint(r diagnose.GapReason) string {
	switch r {
	case diagnose.GapForbidden:
		return "you may not read it; your platform team can check it or grant read access"
	case diagnose.GapUnavailable:
		return "the API is not served or did not answer"
	case diagnose.GapTimeout:
		return "the API server did not answer in time; try again"
	case diagnose.GapNotFound:
		return "it does not exist"
	}
	return "could not be read"
}

func mdEscape(s string) string {
	r := strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;", "*", "\\*", "_", "\\_", "`", "\\`")
	return r.Replace(s)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 240 {
		s = s[:237] + "..."
	}
	return s
}

// wrap breaks s into lines of at most width runes; continuation lines get
// indent.
func wrap(s string, width int, indent string) string {
	words := strings.Fields(s)
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			if line+1+len(w) > width {
				b.WriteString("\n" + indent)
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// ineligibleNotes says once per pod set and flavor why a flavor cannot take
// the pod set, naming the pod set when the table has several.
func ineligibleNotes(rows []diagnose.QuotaRow) string {
	podSets := map[string]bool{}
	for _, row := range rows {
		podSets[row.PodSet] = true
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, row := range rows {
		key := row.PodSet + "\x00" + row.Flavor
		if row.Ineligible == "" || seen[key] {
			continue
		}
		seen[key] = true
		if len(podSets) > 1 {
			fmt.Fprintf(&b, "  flavor %s is ineligible for pod set %s: %s\n", row.Flavor, row.PodSet, row.Ineligible)
			continue
		}
		fmt.Fprintf(&b, "  flavor %s is ineligible: %s\n", row.Flavor, row.Ineligible)
	}
	return b.String()
}
