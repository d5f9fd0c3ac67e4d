package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
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

// Write renders r in format f to w, in English.
func Write(w io.Writer, f Format, r *diagnose.Report) error {
	return WriteWith(w, f, r, Options{})
}

// WriteWith renders r in format f to w with o: the text and Markdown
// renderings in o.Lang. JSON is the contract and stays English.
func WriteWith(w io.Writer, f Format, r *diagnose.Report, o Options) error {
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case Markdown:
		_, err := io.WriteString(w, MarkdownStringWith(r, o))
		return err
	default:
		_, err := io.WriteString(w, TextStringWith(r, o))
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

func pos(l i18n.Lang, p *int32) string {
	if p == nil {
		return tr(l, "render.unknown")
	}
	return fmt.Sprintf("%d", *p+1)
}

func yesNo(l i18n.Lang, b bool) string {
	if b {
		return tr(l, "render.yes")
	}
	return tr(l, "render.no")
}

func whoIn(l i18n.Lang, w diagnose.Who) string {
	switch w {
	case diagnose.WhoYou:
		return tr(l, "render.who.you")
	case diagnose.WhoPlatform:
		return tr(l, "render.who.platform")
	}
	return string(w)
}

func severityIn(l i18n.Lang, s diagnose.Severity) string {
	switch s {
	case diagnose.SeverityInfo:
		return tr(l, "render.severity.info")
	case diagnose.SeverityWarning:
		return tr(l, "render.severity.warning")
	case diagnose.SeverityBlocker:
		return tr(l, "render.severity.blocker")
	}
	return string(s)
}

// TextString renders the report like kubectl describe: labelled fields,
// explicit <none>, aligned tables; in English.
func TextString(r *diagnose.Report) string { return TextStringWith(r, Options{}) }

// TextStringWith is TextString in o.Lang.
func TextStringWith(r *diagnose.Report, o Options) string {
	l := o.Lang
	var b bytes.Buffer
	tw := newTable(&b)
	if r.Cluster != "" {
		fmt.Fprintf(tw, "%s\t%s\n", label(l, "render.label.cluster"), r.Cluster)
	}
	fmt.Fprintf(tw, "%s%s\t%s/%s\n", orNone(r.Target.Kind), colon(l), orNone(r.Target.Namespace), orNone(r.Target.Name))
	fmt.Fprintf(tw, "%s\t%s\n", label(l, "render.label.workload"), orNone(r.Target.Workload))
	lq := orNone(r.Queue.LocalQueue)
	if r.Queue.PositionInLocalQueue != nil {
		lq += tr(l, "render.label.position", i18n.Verbatim(pos(l, r.Queue.PositionInLocalQueue)))
	}
	cq := orNone(r.Queue.ClusterQueue)
	if r.Queue.PositionInClusterQueue != nil {
		cq += tr(l, "render.label.position", i18n.Verbatim(pos(l, r.Queue.PositionInClusterQueue)))
	}
	fmt.Fprintf(tw, "LocalQueue%s\t%s\n", colon(l), lq)
	fmt.Fprintf(tw, "ClusterQueue%s\t%s\n", colon(l), cq)
	v := r.Verdict
	code := string(v.Code)
	if v.Cause != "" {
		code += "/" + string(v.Cause)
	}
	fmt.Fprintf(tw, "%s\t%s\n", label(l, "render.label.verdict"), tr(l, "render.label.stage", i18n.Verbatim(code), i18n.Name(string(v.Stage))))
	_ = tw.Flush()
	fmt.Fprintf(&b, "\n%s\n", v.HeadlineIn(l))
	if d := v.DetailIn(l); d != "" {
		fmt.Fprintf(&b, "%s\n", wrapL(l, d, 100, ""))
	}
	b.WriteString(clustersText(l, r))
	if e := r.Estimate; e != nil {
		fmt.Fprintf(&b, "\n%s %s\n", label(l, "render.label.estimate"), wrapL(l, e.PhraseIn(l), 100, "  "))
		if basis := e.BasisIn(l); basis != "" {
			fmt.Fprintf(&b, "%s %s\n", label(l, "render.label.basis"), wrapL(l, basis, 100, "  "))
		}
	}

	b.WriteString("\n" + label(l, "render.section.quota") + "\n")
	if len(r.Quota) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = newTable(&b)
		fmt.Fprintln(tw, tr(l, "render.quota.header"))
		for _, row := range r.Quota {
			flavor := row.Flavor
			if !row.Eligible {
				flavor += tr(l, "render.ineligible")
			}
			avail, maxc := q(row.Available), q(row.MaxCapacity)
			if row.Partial {
				avail, maxc = avail+"+", maxc+"+"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				row.PodSet, flavor, row.Resource, q(row.Requested), q(row.Nominal), qp(row.BorrowingLimit), qp(row.LendingLimit),
				q(row.Reserved), avail, maxc, yesNo(l, row.FitsNow), yesNo(l, row.FitsEver), qp(row.ShortBy))
		}
		_ = tw.Flush()
		b.WriteString(ineligibleNotes(r.Quota, l))
	}

	b.WriteString("\n" + label(l, "render.section.remedies") + "\n")
	if len(r.Remedies) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for i, m := range r.Remedies {
		fmt.Fprintf(&b, "  %d. [%s] %s\n", i+1, whoIn(l, m.Who), wrapL(l, m.SummaryIn(l), 96, "     "))
		if m.Command != "" {
			fmt.Fprintf(&b, "     $ %s\n", m.Command)
		}
	}

	b.WriteString("\n" + label(l, "render.section.findings") + "\n")
	if len(r.Findings) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s%s %s\n", severityIn(l, f.Severity), colon(l), wrapL(l, f.MessageIn(l), 96, "    "))
	}

	b.WriteString("\n" + label(l, "render.section.gaps") + "\n")
	if len(r.Gaps) == 0 {
		b.WriteString("  " + none + "\n")
	}
	for _, g := range r.Gaps {
		fmt.Fprintf(&b, "  %s %s%s %s (%s)\n", g.Kind, orNone(g.Name), colon(l), g.Reason, gapHint(l, g.Reason))
	}
	if r.ClusterScopedByBot {
		b.WriteString(tr(l, "render.clusterScopedByBot", i18n.Obj("ClusterQueue", "", r.Queue.ClusterQueue)) + "\n")
	}

	b.WriteString("\n" + label(l, "render.section.evidence") + "\n")
	if len(r.Evidence) == 0 {
		b.WriteString("  " + none + "\n")
	} else {
		tw = newTable(&b)
		fmt.Fprintln(tw, tr(l, "render.evidence.header"))
		for _, e := range r.Evidence {
			age := orNone(e.Age)
			if e.Count > 1 {
				age = tr(l, "render.evidence.repeat", i18n.Verbatim(age), i18n.Verbatim(fmt.Sprint(e.Count)), i18n.Verbatim(e.Span))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", e.Kind, e.Source, orNone(e.Reason), age, orNone(oneLine(e.Message)))
		}
		_ = tw.Flush()
	}
	b.WriteString(workersText(r, o))
	return b.String()
}

// MarkdownString renders the report as GitHub-flavoured Markdown, for
// tickets and chat tools other than Slack; in English.
func MarkdownString(r *diagnose.Report) string { return MarkdownStringWith(r, Options{}) }

// MarkdownStringWith is MarkdownString in o.Lang.
func MarkdownStringWith(r *diagnose.Report, o Options) string {
	l := o.Lang
	var b strings.Builder
	v := r.Verdict
	code := string(v.Code)
	if v.Cause != "" {
		code += "/" + string(v.Cause)
	}
	fmt.Fprintf(&b, "### %s\n\n", mdEscape(v.HeadlineIn(l)))
	fmt.Fprintf(&b, "**%s** %s  \n", label(l, "render.label.verdict"), tr(l, "render.label.stage", i18n.Verbatim("`"+code+"`"), i18n.Name(string(v.Stage))))
	if r.Cluster != "" {
		fmt.Fprintf(&b, "**%s** `%s`  \n", label(l, "render.label.cluster"), r.Cluster)
	}
	for _, c := range r.Clusters {
		if c.Error != "" {
			fmt.Fprintf(&b, "%s  \n", tr(l, "render.cluster.noAnswer", i18n.Verbatim("**"+mdEscape(c.Cluster)+"**"), i18n.Verbatim(mdEscape(c.ErrorIn(l)))))
		}
	}
	fmt.Fprintf(&b, "**%s%s** `%s/%s`  \n", mdEscape(orNone(r.Target.Kind)), colon(l), r.Target.Namespace, r.Target.Name)
	fmt.Fprintf(&b, "**%s** `%s`  \n", label(l, "render.label.workload"), orNone(r.Target.Workload))
	fmt.Fprintf(&b, "**%s** %s\n\n", label(l, "render.md.queuesLabel"), tr(l, "render.md.queues",
		i18n.Verbatim(orNone(r.Queue.LocalQueue)), i18n.Verbatim(pos(l, r.Queue.PositionInLocalQueue)), i18n.Verbatim(orNone(r.Queue.ClusterQueue)), i18n.Verbatim(pos(l, r.Queue.PositionInClusterQueue))))
	if e := r.Estimate; e != nil {
		fmt.Fprintf(&b, "**%s** %s", label(l, "render.label.estimate"), mdEscape(e.PhraseIn(l)))
		if basis := e.BasisIn(l); basis != "" {
			b.WriteString(tr(l, "render.label.basedOn", i18n.Verbatim(mdEscape(basis))))
		}
		b.WriteString("\n\n")
	}
	if d := v.DetailIn(l); d != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEscape(d))
	}
	if len(r.Quota) > 0 {
		b.WriteString(tr(l, "render.quota.mdHeader") + "\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|\n")
		for _, row := range r.Quota {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				mdEscape(row.PodSet), mdEscape(row.Flavor), mdEscape(row.Resource), q(row.Requested), q(row.Nominal), mdEscape(qp(row.BorrowingLimit)), mdEscape(qp(row.LendingLimit)),
				q(row.Reserved), q(row.Available), q(row.MaxCapacity), yesNo(l, row.FitsNow), yesNo(l, row.FitsEver), mdEscape(qp(row.ShortBy)))
		}
		b.WriteString("\n")
	}
	if len(r.Remedies) > 0 {
		b.WriteString("**" + tr(l, "render.md.whatToDo") + "**\n\n")
		for i, m := range r.Remedies {
			fmt.Fprintf(&b, "%d. *(%s)* %s\n", i+1, whoIn(l, m.Who), mdEscape(m.SummaryIn(l)))
			if m.Command != "" {
				fmt.Fprintf(&b, "   ```\n   %s\n   ```\n", m.Command)
			}
		}
		b.WriteString("\n")
	}
	if len(r.Findings) > 0 {
		b.WriteString("**" + tr(l, "render.md.findings") + "**\n\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- %s%s %s\n", severityIn(l, f.Severity), colon(l), mdEscape(f.MessageIn(l)))
		}
		b.WriteString("\n")
	}
	if len(r.Gaps) > 0 {
		b.WriteString("**" + tr(l, "render.md.couldNotCheck") + "**\n\n")
		for _, g := range r.Gaps {
			fmt.Fprintf(&b, "- %s `%s`%s %s (%s)\n", g.Kind, orNone(g.Name), colon(l), g.Reason, gapHint(l, g.Reason))
		}
		b.WriteString("\n")
	}
	b.WriteString(workersMarkdown(r, o))
	return b.String()
}

// gapHint says who can act on a failed read.
func gapHint(l i18n.Lang, r diagnose.GapReason) string {
	switch r {
	case diagnose.GapForbidden:
		return tr(l, "render.gap.forbidden")
	case diagnose.GapUnavailable:
		return tr(l, "render.gap.unavailable")
	case diagnose.GapTimeout:
		return tr(l, "render.gap.timeout")
	case diagnose.GapNotFound:
		return tr(l, "render.gap.notFound")
	}
	return tr(l, "render.gap.other")
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
func ineligibleNotes(rows []diagnose.QuotaRow, l i18n.Lang) string {
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
		why := i18n.Verbatim(row.Ineligible)
		if !row.IneligibleMsg.IsZero() {
			why = i18n.Verbatim(row.IneligibleMsg.In(l))
		}
		if len(podSets) > 1 {
			b.WriteString(tr(l, "render.ineligible.podSet", i18n.Name(row.Flavor), i18n.Name(row.PodSet), why) + "\n")
			continue
		}
		b.WriteString(tr(l, "render.ineligible.one", i18n.Name(row.Flavor), why) + "\n")
	}
	return b.String()
}
