package render

import (
	"fmt"
	"strings"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// workersText renders the MultiKueue part of a report: where the Workload
// went (Report.MultiKueue) and each worker cluster's own diagnosis
// (Report.Workers), the worker's text report indented under its name.
func workersText(r *diagnose.Report, o Options) string {
	l := o.Lang
	if r.MultiKueue == nil && len(r.Workers) == 0 {
		return ""
	}
	var b strings.Builder
	if m := r.MultiKueue; m != nil {
		b.WriteString("\nMultiKueue" + colon(l) + "\n")
		b.WriteString(tr(l, "render.mk.check", i18n.Name(m.Check), i18n.Verbatim(orNone(m.State))))
		if m.Message != "" {
			fmt.Fprintf(&b, " (%s)", oneLine(m.Message))
		}
		b.WriteString("\n")
		if m.Cluster != "" {
			b.WriteString(tr(l, "render.mk.runsOn", i18n.Name(m.Cluster)) + "\n")
		} else if len(m.Nominated) > 0 {
			b.WriteString(tr(l, "render.mk.copiedTo", i18n.Verbatim(strings.Join(m.Nominated, ", "))) + "\n")
		}
		for _, w := range m.Workers {
			fmt.Fprintf(&b, "  MultiKueueCluster %s: Active=%s", w.Name, orNone(w.Active))
			if w.Reason != "" {
				fmt.Fprintf(&b, " (%s)", w.Reason)
			}
			b.WriteString("\n")
		}
	}
	for _, w := range r.Workers {
		b.WriteString("\n" + tr(l, "render.mk.onWorker", i18n.Name(w.Cluster)) + "\n")
		if w.Report == nil {
			fmt.Fprintf(&b, "  %s\n", wrapL(l, w.ErrorIn(l), 96, "  "))
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(TextStringWith(w.Report, o), "\n"), "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// workersMarkdown is workersText for Markdown.
func workersMarkdown(r *diagnose.Report, o Options) string {
	var b strings.Builder
	for _, w := range r.Workers {
		b.WriteString(tr(o.Lang, "render.mk.onWorkerMd", i18n.Name(w.Cluster)) + "\n\n")
		if w.Report == nil {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(w.ErrorIn(o.Lang)))
			continue
		}
		md := MarkdownStringWith(w.Report, o)
		b.WriteString(strings.Replace(md, "### ", "##### ", 1))
	}
	return b.String()
}

// clustersText names, when the job was looked for in several clusters,
// each cluster that could not be searched ("" when all were).
func clustersText(l i18n.Lang, r *diagnose.Report) string {
	var b strings.Builder
	for _, c := range r.Clusters {
		if c.Error != "" {
			fmt.Fprintf(&b, "%s\n", wrapL(l, tr(l, "render.cluster.noAnswer", i18n.Verbatim(c.Cluster), i18n.Verbatim(c.ErrorIn(l))), 100, "  "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}
