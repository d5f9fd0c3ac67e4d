package blocks

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
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
	// Lang is the language of the answer's sentences, headings and
	// buttons (English by default). Codes, names, quantities, commands and
	// Kueue's and Kubernetes' own messages stay as they are.
	Lang i18n.Lang
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
	return Message{Text: fallbackText(r, headlineIn(r.Verdict, opts.Lang)), Blocks: Fit(reportBlocks(r, opts, true), hint)}
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
	l := opts.Lang
	header := headlineIn(r.Verdict, l)
	if icon := stageIcon[r.Verdict.Stage]; icon != "" {
		header = icon + " " + header
	}
	bl = append(bl, slack.NewHeaderBlock(plain(truncate(header, MaxHeaderText))))
	bl = append(bl, contextLine(r, l))
	bl = append(bl, clusterBlocks(r, l)...)
	if d := strings.TrimSpace(r.Verdict.DetailIn(l)); d != "" {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(truncate(Paragraph(d), MaxSectionText)), nil, nil))
	}
	if e := r.Estimate; e != nil {
		bl = append(bl, estimateBlock(e, l))
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
			items = append(items, fmt.Sprintf("%s %s", icon, Line(f.MessageIn(l))))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*"+tr(l, "blocks.section.findings")+"*", items)...)
	}
	if len(r.Remedies) > 0 {
		items := make([]string, 0, len(r.Remedies))
		for i, m := range r.Remedies {
			s := fmt.Sprintf("*%d.* %s  _(%s)_", i+1, Line(m.SummaryIn(l)), Line(whoTextIn(m.Who, l)))
			if m.Command != "" {
				s += "\n" + CodeBlock(m.Command)
			}
			items = append(items, s)
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*"+tr(l, "blocks.section.remedies")+"*", items)...)
	}
	bl = append(bl, workerBlocks(r, l)...)
	if !details {
		return bl
	}
	if len(r.Gaps) > 0 {
		items := make([]string, 0, len(r.Gaps))
		for _, g := range r.Gaps {
			items = append(items, "• "+gapTextIn(g, l))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*"+tr(l, "blocks.section.gaps")+"*", items)...)
	}
	if len(r.Evidence) > 0 {
		items := make([]string, 0, len(r.Evidence))
		for _, e := range r.Evidence {
			items = append(items, "• "+evidenceTextIn(e, l))
		}
		bl = append(bl, slack.NewDividerBlock())
		bl = append(bl, packSections("*"+tr(l, "blocks.section.evidence")+"*", items)...)
	}
	return bl
}

// estimateBlock says when the job is likely admitted, and on what the
// figure rests, or that there is no estimate and why.
func estimateBlock(e *diagnose.Estimate, l i18n.Lang) slack.Block {
	s := "🕒 *" + tr(l, "blocks.estimate.label") + "* " + Line(e.PhraseIn(l))
	if b := e.BasisIn(l); b != "" {
		s += "\n_" + Line(tr(l, "blocks.estimate.basis", i18n.Verbatim(b))) + "_"
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

// headlineIn is the verdict's headline in l, on one line; the code and cause
// when it has none.
func headlineIn(v diagnose.Verdict, l i18n.Lang) string {
	if h := strings.TrimSpace(v.HeadlineIn(l)); h != "" {
		return strings.Join(strings.Fields(h), " ")
	}
	if v.Code == "" {
		return tr(l, "blocks.noVerdict")
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

func contextLine(r diagnose.Report, l i18n.Lang) slack.Block {
	v := r.Verdict
	verdict := "*" + tr(l, "blocks.context.verdict") + "* " + Code(string(v.Code))
	if v.Cause != "" {
		verdict += " / " + Code(string(v.Cause))
	}
	if v.Stage != "" {
		verdict += " · " + Line(string(v.Stage))
	}
	els := []slack.MixedElement{mrkdwn(verdict)}
	if r.Target.Name != "" {
		els = append(els, mrkdwn("*"+tr(l, "blocks.context.job")+"* "+Code(targetText(r.Target))))
	}
	if r.Target.Workload != "" {
		els = append(els, mrkdwn("*"+tr(l, "blocks.context.workload")+"* "+Code(r.Target.Workload)))
	}
	if q := r.Queue; q.LocalQueue != "" || q.ClusterQueue != "" {
		els = append(els, mrkdwn("*"+tr(l, "blocks.context.queues")+"* "+Code(q.LocalQueue)+" → "+Code(q.ClusterQueue)))
	}
	var pos []string
	if p := r.Queue.PositionInLocalQueue; p != nil {
		pos = append(pos, tr(l, "blocks.context.inLocalQueue", i18n.Name(ordinalIn(*p+1, l))))
	}
	if p := r.Queue.PositionInClusterQueue; p != nil {
		pos = append(pos, tr(l, "blocks.context.inClusterQueue", i18n.Name(ordinalIn(*p+1, l))))
	}
	if len(pos) > 0 {
		sep := ", "
		if l == i18n.Japanese || l == i18n.Chinese {
			sep = "、"
		}
		els = append(els, mrkdwn("*"+tr(l, "blocks.context.position")+"* "+strings.Join(pos, sep)))
	}
	return slack.NewContextBlock("", els...)
}

// ordinalIn is n as an ordinal in l: English "1st", French "1er", "2e";
// Japanese and Chinese write the number alone (the sentence holds 番目, 第).
func ordinalIn(n int32, l i18n.Lang) string {
	switch l {
	case i18n.French:
		if n == 1 {
			return "1er"
		}
		return fmt.Sprintf("%de", n)
	case i18n.Japanese, i18n.Chinese:
		return fmt.Sprint(n)
	}
	return ordinal(n)
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

// whoTextIn says who can carry out a remedy, in l.
func whoTextIn(w diagnose.Who, l i18n.Lang) string {
	switch w {
	case "":
		return tr(l, "blocks.who.anyone")
	case diagnose.WhoYou:
		return tr(l, "blocks.who.you")
	case diagnose.WhoPlatform:
		return tr(l, "blocks.who.platform")
	}
	return string(w)
}

// gapReasonText says, per reason, what a failed read means and who can help.
var gapReasonText = map[diagnose.GapReason]i18n.ID{
	diagnose.GapForbidden:   "blocks.gap.forbidden",
	diagnose.GapNotFound:    "blocks.gap.notFound",
	diagnose.GapUnavailable: "blocks.gap.unavailable",
	diagnose.GapTimeout:     "blocks.gap.timeout",
	diagnose.GapInvalid:     "blocks.gap.invalid",
}

// gapTextIn says, in l, what could not be read and what that means.
func gapTextIn(g diagnose.Gap, l i18n.Lang) string {
	obj := Line(g.Kind)
	if obj == "" {
		obj = tr(l, "blocks.gap.anObject")
	}
	if g.Name != "" {
		obj += " " + Code(g.Name)
	}
	why, ok := gapReasonText[g.Reason]
	if !ok {
		why = "blocks.gap.other"
	}
	s := tr(l, "blocks.gap.line", i18n.Verbatim(obj), i18n.M(why))
	if g.Message != "" {
		s += " _" + Line(truncate(g.Message, 300)) + "_"
	}
	return s
}

// evidenceTextIn is one piece of evidence: the source, kind and reason, and
// the message as Kueue or Kubernetes wrote it, with the folding in l.
func evidenceTextIn(e diagnose.Evidence, l i18n.Lang) string {
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
			m += " " + tr(l, "blocks.evidence.over", i18n.Verbatim(Line(e.Span)))
		}
		meta = append(meta, m)
	}
	if e.Age != "" {
		meta = append(meta, tr(l, "blocks.evidence.ago", i18n.Verbatim(Line(e.Age))))
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
var quotaColumns = []i18n.ID{"blocks.quota.podSet", "blocks.quota.flavor", "blocks.quota.resource", "blocks.quota.requested",
	"blocks.quota.available", "blocks.quota.nominal", "blocks.quota.borrowLimit", "blocks.quota.max", "blocks.quota.fits"}

func quotaColumnsIn(l i18n.Lang) []string {
	out := make([]string, len(quotaColumns))
	for i, id := range quotaColumns {
		out[i] = tr(l, id)
	}
	return out
}

// quotaRightAligned marks the numeric columns.
var quotaRightAligned = []bool{false, false, false, true, true, true, true, true, false}

func quotaRows(rows []diagnose.QuotaRow, cohort string, l i18n.Lang) [][]string {
	unlimited := tr(l, "blocks.quota.unlimited")
	if cohort == "" {
		unlimited = tr(l, "blocks.quota.noCohort")
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
			fits(q, l),
		})
	}
	return out
}

func fits(q diagnose.QuotaRow, l i18n.Lang) string {
	switch {
	case !q.Eligible:
		if !q.IneligibleMsg.IsZero() {
			return tr(l, "blocks.quota.ineligible", i18n.Verbatim(q.IneligibleMsg.In(l)))
		}
		if q.Ineligible != "" {
			return tr(l, "blocks.quota.ineligible", i18n.Verbatim(q.Ineligible))
		}
		return tr(l, "blocks.quota.notEligible")
	case q.FitsNow:
		return tr(l, "blocks.quota.fitsYes")
	case !q.FitsEver:
		return tr(l, "blocks.quota.fitsNever")
	case q.ShortBy != nil:
		return tr(l, "blocks.quota.fitsShort", i18n.Qty(diagnose.FormatQuantity(*q.ShortBy)))
	default:
		return tr(l, "blocks.quota.fitsNotNow")
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
	l := opts.Lang
	rows := quotaRows(r.Quota, r.Queue.Cohort, l)
	title := tr(l, "blocks.quota.title")
	out := []slack.Block{slack.NewSectionBlock(mrkdwn(title), nil, nil)}
	if opts.NoTable {
		out = append(out, preformattedTable(quotaColumnsIn(l), rows, quotaRightAligned))
	} else {
		out = append(out, tableBlock(quotaColumnsIn(l), rows, quotaRightAligned))
	}
	var notes []string
	for _, q := range r.Quota {
		if q.Partial {
			notes = append(notes, tr(l, "blocks.quota.partial"))
			break
		}
	}
	if r.ClusterScopedByBot {
		notes = append(notes, tr(l, "blocks.quota.byBot"))
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
