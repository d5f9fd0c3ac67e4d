package diagnose_test

import (
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
)

func renderCheckText(r *diagnose.CheckReport) string     { return render.CheckText(r) }
func renderCheckMarkdown(r *diagnose.CheckReport) string { return render.CheckMarkdown(r) }
