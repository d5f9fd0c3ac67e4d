package blocks

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
)

// Options tunes Report.
type Options struct {
	// NoTable renders the quota comparison as a preformatted section instead
	// of a table block (for clients or surfaces without table support).
	NoTable bool
	// MoreHint is the command shown when something had to be cut, e.g.
	// "kueuebot diagnose jobset/train-7 -n team-a -o text". Empty: derived
	// from the report's target.
	MoreHint string
}

// stageIcon marks the header so the stage is visible at a glance.
var stageIcon = map[diagnose.Stage]string{
	diagnose.StageResolve:    "❓",
	diagnose.StageAdmission:  "⏳",
	diagnose.StageScheduling: "🧩",
	diagnose.StageRunning:    "✅",
	diagnose.StageFinished:   "🏁",
}

var severityIcon = map[diagnose.Severity]string{
	diagnose.SeverityBlocker: "🛑",
	diagnose.SeverityWarning: "⚠️",
	diagnose.SeverityInfo:    "ℹ️",
}

// Report renders a diagnosis as a Block Kit message: a header with the
// headline, a context line (verdict, job, workload, queues, position), the
// detail, the quota comparison, findings, remedies, gaps and evidence. The
// result is already Fit to Slack's limits.
func Report(r diagnose.Report, opts Options) Message {
	hint := hintOf(r, opts)
	return Message{Text: fallbackText(r, headline(r.Verdict)), Blocks: Fit(reportBlocks(r, opts, true), hint)}
}

// hintOf is the command shown when something had to be cut.
func hintOf(r diagnose.Report, opts Options) string {
	if opts.MoreHint != "" {
		return opts.MoreHint
	}
	return MoreHint(r.Target)
}

// reportBlocks are the blocks of a report, before Fit. Without details,
// the quota, gaps and evidence are left out.
func reportBlocks(r diagnose.Report, opts Options, details bool) []slack.Block {
	var bl []slack.Block
	header := headline(r.Verdict)
	if icon := stageIcon[r.Verdict.Stage]; icon != "" {
		header = icon + " " + header
	}
	bl = append(bl, slack.NewHeaderBlock(plain(truncate(header, MaxHeaderText))))
	bl = append(bl, contextLine(r))
	if d := strings.TrimSpace(r.Verdict.Detail); d != "" {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(truncate(Paragraph(d), MaxSectionText)), nil, nil))
	}
	if e := r.Estimate; e != nil {
		bl = append(bl, estimateBlock(e))
	}
	if details && len(r.Quota) > 0 {
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, quotaBlocks(r, opts)...)
	}
	if len(r.Findings) > 0 {
		items := make([]string, 0, len(r.Findings))
		for _, f := range r.Findings {
			icon := severityIcon[f.Severity]
			if icon == "" {
				icon = "•"
			}
			items = append(items, fmt.Sprintf("%s %s", icon, Line(f.Message)))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*Findings*", items)...)
	}
	if len(r.Remedies) > 0 {
		items := make([]string, 0, len(r.Remedies))
		for i, m := range r.Remedies {
			s := fmt.Sprintf("*%d.* %s  _(%s)_", i+1, Line(m.Summary), Line(whoText(m.Who)))
			if m.Command != "" {
				s += "\n" + CodeBlock(m.Command)
			}
			items = append(items, s)
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*What to do*", items)...)
	}
	bl = append(bl, workerBlocks(r)...)
	if !details {
		return bl
	}
	if len(r.Gaps) > 0 {
		items := make([]string, 0, len(r.Gaps))
		for _, g := range r.Gaps {
			items = append(items, "• "+gapText(g))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*What I could not check*", items)...)
	}
	if len(r.Evidence) > 0 {
		items := make([]string, 0, len(r.Evidence))
		for _, e := range r.Evidence {
			items = append(items, "• "+evidenceText(e))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*Evidence*", items)...)
	}
	return bl
}

// estimateBlock says when the job is likely admitted, and on what the
// figure rests, or that there is no estimate and why.
func estimateBlock(e *diagnose.Estimate) slack.Block {
	s := "🕒 *Estimated start:* " + Line(e.Phrase())
	if e.Basis != "" {
		s += "\n_Based on " + Line(e.Basis) + "._"
	}
	return slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil)
}

// MoreHint is the CLI command that prints the full report for a target.
func MoreHint(t diagnose.TargetInfo) string {
	var b strings.Builder
	b.WriteString("kueuebot diagnose ")
	if t.Kind != "" {
		b.WriteString(strings.ToLower(t.Kind))
		b.WriteString("/")
	}
	if t.Name != "" {
		b.WriteString(t.Name)
	} else {
		b.WriteString("NAME")
	}
	if t.Namespace != "" {
		b.WriteString(" -n ")
		b.WriteString(t.Namespace)
	}
	b.WriteString(" -o text")
	return b.String()
}

func headline(v diagnose.Verdict) string {
	if h := strings.TrimSpace(v.Headline); h != "" {
		return strings.Join(strings.Fields(h), " ")
	}
	if v.Code == "" {
		return "No verdict"
	}
	if v.Cause != "" {
		return fmt.Sprintf("%s (%s)", v.Code, v.Cause)
	}
	return string(v.Code)
}

func fallbackText(r diagnose.Report, headline string) string {
	s := Line(headline)
	if r.Target.Name != "" {
		s += " (" + Line(targetText(r.Target)) + ")"
	}
	return truncate(s, MaxFallbackText)
}

func targetText(t diagnose.TargetInfo) string {
	s := t.Name
	if t.Namespace != "" {
		s = t.Namespace + "/" + t.Name
	}
	if t.Kind != "" {
		s = t.Kind + " " + s
	}
	return s
}

func contextLine(r diagnose.Report) slack.Block {
	v := r.Verdict
	verdict := "*Verdict:* " + Code(string(v.Code))
	if v.Cause != "" {
		verdict += " / " + Code(string(v.Cause))
	}
	if v.Stage != "" {
		verdict += " · " + Line(string(v.Stage))
	}
	els := []slack.MixedElement{mrkdwn(verdict)}
	if r.Target.Name != "" {
		els = append(els, mrkdwn("*Job:* "+Code(targetText(r.Target))))
	}
	if r.Target.Workload != "" {
		els = append(els, mrkdwn("*Workload:* "+Code(r.Target.Workload)))
	}
	if q := r.Queue; q.LocalQueue != "" || q.ClusterQueue != "" {
		els = append(els, mrkdwn("*Queues:* "+Code(q.LocalQueue)+" → "+Code(q.ClusterQueue)))
	}
	var pos []string
	if p := r.Queue.PositionInLocalQueue; p != nil {
		pos = append(pos, ordinal(*p+1)+" in LocalQueue")
	}
	if p := r.Queue.PositionInClusterQueue; p != nil {
		pos = append(pos, ordinal(*p+1)+" in ClusterQueue")
	}
	if len(pos) > 0 {
		els = append(els, mrkdwn("*Position:* "+strings.Join(pos, ", ")))
	}
	return slack.NewContextBlock("", els...)
}

// ordinal renders 1 as "1st", 2 as "2nd", 11 as "11th".
func ordinal(n int32) string {
	suffix := "th"
	switch n % 100 {
	case 11, 12, 13:
	default:
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

func whoText(w diagnose.Who) string {
	if w == "" {
		return "anyone"
	}
	return string(w)
}

// gapReasonText says, per reason, what a failed read means and who can help.
var gapReasonText = map[diagnose.GapReason]string{
	diagnose.GapForbidden:   "you may not read it; ask your platform team to check it for you or to grant read access",
	diagnose.GapNotFound:    "it does not exist, or you cannot see it",
	diagnose.GapUnavailable: "the cluster did not answer, or does not serve that API (such as Kueue's visibility API); try again in a minute, or ask your platform team",
	diagnose.GapTimeout:     "the read timed out; try again in a minute",
	diagnose.GapInvalid:     "it was read but could not be understood; ask your platform team",
}

func gapText(g diagnose.Gap) string {
	obj := Line(g.Kind)
	if obj == "" {
		obj = "an object"
	}
	if g.Name != "" {
		obj += " " + Code(g.Name)
	}
	why := gapReasonText[g.Reason]
	if why == "" {
		why = "ask your platform team"
	}
	s := fmt.Sprintf("Could not read %s: %s.", obj, why)
	if g.Message != "" {
		s += " _" + Line(truncate(g.Message, 300)) + "_"
	}
	return s
}

func evidenceText(e diagnose.Evidence) string {
	var b strings.Builder
	b.WriteString(Code(e.Source))
	if e.Kind != "" {
		b.WriteString(" ")
		b.WriteString(Line(e.Kind))
	}
	if e.Reason != "" {
		b.WriteString(" *")
		b.WriteString(Line(e.Reason))
		b.WriteString("*")
	}
	b.WriteString(": ")
	b.WriteString(Line(truncate(e.Message, 500)))
	var meta []string
	if e.Count > 1 {
		m := fmt.Sprintf("x%d", e.Count)
		if e.Span != "" {
			m += " over " + Line(e.Span)
		}
		meta = append(meta, m)
	}
	if e.Age != "" {
		meta = append(meta, Line(e.Age)+" ago")
	}
	if len(meta) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(meta, ", "))
		b.WriteString(")")
	}
	return b.String()
}

// packSections puts a title and items into as few sections as the section
// text limit allows, one item per line.
func packSections(title string, items []string) []slack.Block {
	var out []slack.Block
	cur := title
	for _, it := range items {
		it = truncate(it, MaxSectionText-1)
		if cur != "" && runeLen(cur)+1+runeLen(it) > MaxSectionText {
			out = append(out, slack.NewSectionBlock(mrkdwn(cur), nil, nil))
			cur = ""
		}
		if cur == "" {
			cur = it
		} else {
			cur += "\n" + it
		}
	}
	if cur != "" {
		out = append(out, slack.NewSectionBlock(mrkdwn(cur), nil, nil))
	}
	return out
}

// quotaColumns are the quota table's columns.
var quotaColumns = []string{"Pod set", "Flavor", "Resource", "Requested", "Available", "Nominal", "Borrow limit", "Max", "Fits"}

// quotaRightAligned marks the numeric columns.
var quotaRightAligned = []bool{false, false, false, true, true, true, true, true, false}

func quotaRows(rows []diagnose.QuotaRow, cohort string) [][]string {
	unlimited := "unlimited"
	if cohort == "" {
		unlimited = "no cohort"
	}
	out := make([][]string, 0, len(rows))
	for _, q := range rows {
		lb := ""
		if q.Partial {
			lb = "≥"
		}
		out = append(out, []string{
			orNone(q.PodSet), orNone(q.Flavor), orNone(q.Resource),
			qty(q.Requested), lb + qty(q.Available), qty(q.Nominal),
			optQty(q.BorrowingLimit, unlimited), lb + qty(q.MaxCapacity),
			fits(q),
		})
	}
	return out
}

func fits(q diagnose.QuotaRow) string {
	switch {
	case !q.Eligible:
		if q.Ineligible != "" {
			return "no: " + q.Ineligible
		}
		return "no: flavor not eligible"
	case q.FitsNow:
		return "yes"
	case !q.FitsEver:
		return "never"
	case q.ShortBy != nil:
		return "not now, short " + diagnose.FormatQuantity(*q.ShortBy)
	default:
		return "not now"
	}
}

func qty(q resource.Quantity) string { return diagnose.FormatQuantity(q) }

func optQty(q *resource.Quantity, absent string) string {
	if q == nil {
		return absent
	}
	return diagnose.FormatQuantity(*q)
}

func orNone(s string) string {
	if s == "" {
		return None
	}
	return s
}

func quotaBlocks(r diagnose.Report, opts Options) []slack.Block {
	rows := quotaRows(r.Quota, r.Queue.Cohort)
	title := "*Quota* (totals for the pod set; available includes what may be borrowed)"
	out := []slack.Block{slack.NewSectionBlock(mrkdwn(title), nil, nil)}
	if opts.NoTable {
		out = append(out, preformattedTable(quotaColumns, rows, quotaRightAligned))
	} else {
		out = append(out, tableBlock(quotaColumns, rows, quotaRightAligned))
	}
	var notes []string
	for _, q := range r.Quota {
		if q.Partial {
			notes = append(notes, "≥ marks lower bounds: part of the cohort could not be read.")
			break
		}
	}
	if r.ClusterScopedByBot {
		notes = append(notes, "Quota figures were read by kueuebot on your behalf.")
	}
	if len(notes) > 0 {
		els := make([]slack.MixedElement, 0, len(notes))
		for _, n := range notes {
			els = append(els, mrkdwn(n))
		}
		out = append(out, slack.NewContextBlock("", els...))
	}
	return out
}

// tableBlock builds a table block with a bold header row. Cells are
// raw_text (tables are not parsed as mrkdwn).
func tableBlock(cols []string, rows [][]string, right []bool) *slack.TableBlock {
	t := slack.NewTableBlock("")
	settings := make([]slack.ColumnSetting, len(cols))
	for i := range cols {
		settings[i] = slack.ColumnSetting{Align: slack.ColumnAlignmentLeft, IsWrapped: !right[i]}
		if right[i] {
			settings[i].Align = slack.ColumnAlignmentRight
		}
	}
	t.WithColumnSettings(settings...)
	header := make([]slack.TableCell, len(cols))
	for i, c := range cols {
		header[i] = slack.NewTableRichTextCell(slack.NewRichTextSection(
			slack.NewRichTextSectionTextElement(c, &slack.RichTextSectionTextStyle{Bold: true})))
	}
	t.AddRow(header...)
	for _, row := range rows {
		cells := make([]slack.TableCell, len(row))
		for i, c := range row {
			cells[i] = slack.NewTableRawTextCell(c)
		}
		t.AddRow(cells...)
	}
	return t
}

// preformattedTable renders a table as aligned columns in a code block.
func preformattedTable(cols []string, rows [][]string, right []bool) *slack.SectionBlock {
	all := append([][]string{cols}, rows...)
	return slack.NewSectionBlock(mrkdwn(truncate(CodeBlock(alignColumns(all, right, true)), MaxSectionText)), nil, nil)
}
