package render

import (
	"fmt"
	"strings"

	"github.com/kueuebot/kueuebot/diagnose"
)

// workersText renders the MultiKueue part of a report: where the Workload
// went (Report.MultiKueue) and each worker cluster's own diagnosis
// (Report.Workers), the worker's text report indented under its name.
func workersText(r *diagnose.Report) string {
	if r.MultiKueue == nil && len(r.Workers) == 0 {
		return ""
	}
	var b strings.Builder
	if m := r.MultiKueue; m != nil {
		b.WriteString("\nMultiKueue:\n")
		fmt.Fprintf(&b, "  check %s: %s", m.Check, orNone(m.State))
		if m.Message != "" {
			fmt.Fprintf(&b, " (%s)", oneLine(m.Message))
		}
		b.WriteString("\n")
		if m.Cluster != "" {
			fmt.Fprintf(&b, "  runs on worker cluster %s\n", m.Cluster)
		} else if len(m.Nominated) > 0 {
			fmt.Fprintf(&b, "  copied to worker clusters %s\n", strings.Join(m.Nominated, ", "))
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
		fmt.Fprintf(&b, "\nOn worker cluster %s:\n", w.Cluster)
		if w.Report == nil {
			fmt.Fprintf(&b, "  %s\n", wrap(w.Error, 96, "  "))
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(TextString(w.Report), "\n"), "\n") {
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
func workersMarkdown(r *diagnose.Report) string {
	var b strings.Builder
	for _, w := range r.Workers {
		fmt.Fprintf(&b, "#### On worker cluster `%s`\n\n", w.Cluster)
		if w.Report == nil {
			fmt.Fprintf(&b, "%s\n\n", mdEscape(w.Error))
			continue
		}
		md := MarkdownString(w.Report)
		b.WriteString(strings.Replace(md, "### ", "##### ", 1))
	}
	return b.String()
}

// clustersText names, when the job was looked for in several clusters,
// each cluster that could not be searched ("" when all were).
func clustersText(r *diagnose.Report) string {
	var b strings.Builder
	for _, l := range r.Clusters {
		if l.Error != "" {
			fmt.Fprintf(&b, "%s did not answer: %s\n", l.Cluster, wrap(l.Error, 100, "  "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n" + b.String()
}
