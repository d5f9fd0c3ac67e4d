package blocks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"exact", "abcde", 5, "abcde"},
		{"cut", "abcdef", 5, "abcd…"},
		{"runes not bytes", "äöüßéè", 4, "äöü…"},
		{"entity not halved", "ab &amp; cd", 6, "ab …"},
		{"whole entity kept", "ab &amp; cd", 10, "ab &amp; …"},
		{"fence closed", "x\n```\nkubectl get pods --all-namespaces\n```", 20, "x\n```\nkubectl g…\n```"},
		{"balanced fences untouched", "```a``` bcdefghij", 10, "```a``` b…"},
		{"zero", "abc", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := truncate(tt.in, tt.n)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("truncate(%q, %d) (-want +got):\n%s", tt.in, tt.n, diff)
			}
			if runeLen(got) > max(tt.n, 0) {
				t.Errorf("truncate(%q, %d) = %q is %d long", tt.in, tt.n, got, runeLen(got))
			}
		})
	}
}

func button(text, id, value string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(id, value, plain(text))
}

func table(rows, cells int, cell func(r, c int) string) *slack.TableBlock {
	tb := slack.NewTableBlock("")
	for r := range rows {
		row := make([]slack.TableCell, cells)
		for c := range cells {
			row[c] = slack.NewTableRawTextCell(cell(r, c))
		}
		tb.AddRow(row...)
	}
	return tb
}

func TestFit(t *testing.T) {
	long := strings.Repeat("x", 5000)
	fields := make([]*slack.TextBlockObject, 12)
	for i := range fields {
		fields[i] = mrkdwn("f")
	}
	fields[0] = mrkdwn(long[:2500])
	ctx := make([]slack.MixedElement, 12)
	for i := range ctx {
		ctx[i] = mrkdwn(fmt.Sprint(i))
	}
	buttons := make([]slack.BlockElement, 0, 30)
	buttons = append(buttons,
		button(long[:100], "ok", "v"),
		button("bad id", strings.Repeat("i", 256), "v"),
		button("bad value", "ok2", strings.Repeat("v", 2001)))
	for i := range 27 {
		buttons = append(buttons, button(fmt.Sprint(i), fmt.Sprint("b", i), "v"))
	}
	in := []slack.Block{
		slack.NewHeaderBlock(plain(long)),
		slack.NewSectionBlock(mrkdwn(long), fields, nil),
		slack.NewContextBlock("", ctx...),
		slack.NewActionBlock("", buttons...),
		table(120, 25, func(int, int) string { return "x" }),
		table(3, 2, func(r, c int) string { return fmt.Sprintf("r%dc%d", r, c) }),
	}
	got := Fit(in, "kueuebot diagnose x -o text")
	if v := Check(got); len(v) > 0 {
		t.Errorf("Check(Fit(...)) = %v", v)
	}
	if v := Check(in); len(v) == 0 {
		t.Errorf("Check(input) found nothing wrong")
	}
	// The input must be untouched.
	if h := in[0].(*slack.HeaderBlock); runeLen(h.Text.Text) != 5000 {
		t.Errorf("Fit modified its input")
	}

	t.Run("header truncated", func(t *testing.T) {
		h := got[0].(*slack.HeaderBlock)
		if n := runeLen(h.Text.Text); n != MaxHeaderText || !strings.HasSuffix(h.Text.Text, "…") {
			t.Errorf("header %d long, want %d ending in …", n, MaxHeaderText)
		}
	})
	t.Run("fields", func(t *testing.T) {
		s := got[1].(*slack.SectionBlock)
		if len(s.Fields) != MaxFields {
			t.Errorf("%d fields, want %d", len(s.Fields), MaxFields)
		}
		if n := runeLen(s.Fields[0].Text); n != MaxFieldText {
			t.Errorf("field 0 is %d long, want %d", n, MaxFieldText)
		}
		if n := runeLen(s.Text.Text); n != MaxSectionText {
			t.Errorf("section text %d long, want %d", n, MaxSectionText)
		}
	})
	t.Run("context", func(t *testing.T) {
		c := got[2].(*slack.ContextBlock)
		if n := len(c.ContextElements.Elements); n != MaxContextElements {
			t.Errorf("%d context elements, want %d", n, MaxContextElements)
		}
	})
	t.Run("buttons", func(t *testing.T) {
		a := got[3].(*slack.ActionBlock)
		els := a.Elements.ElementSet
		if len(els) != MaxActionElements {
			t.Errorf("%d buttons, want %d", len(els), MaxActionElements)
		}
		first := els[0].(*slack.ButtonBlockElement)
		if runeLen(first.Text.Text) != MaxButtonText {
			t.Errorf("button text %d long, want %d", runeLen(first.Text.Text), MaxButtonText)
		}
		for _, e := range els {
			if b := e.(*slack.ButtonBlockElement); b.ActionID != "ok" && !strings.HasPrefix(b.ActionID, "b") {
				t.Errorf("kept button %q with oversized id or value", b.ActionID)
			}
		}
	})
	t.Run("table rows note", func(t *testing.T) {
		tb := got[4].(*slack.TableBlock)
		if len(tb.Rows) != MaxTableRows || len(tb.Rows[0]) != MaxTableCells {
			t.Errorf("table %dx%d, want %dx%d", len(tb.Rows), len(tb.Rows[0]), MaxTableRows, MaxTableCells)
		}
		note := got[5].(*slack.ContextBlock).ContextElements.Elements[0].(*slack.TextBlockObject).Text
		if diff := cmp.Diff("… 20 more rows, see `kueuebot diagnose x -o text`", note); diff != "" {
			t.Errorf("note (-want +got):\n%s", diff)
		}
	})
	t.Run("second table as section", func(t *testing.T) {
		s, ok := got[6].(*slack.SectionBlock)
		if !ok {
			t.Fatalf("block 6 is %T, want a section", got[6])
		}
		want := "```\nr0c0  r0c1\n----------\nr1c0  r1c1\nr2c0  r2c1\n```"
		if diff := cmp.Diff(want, s.Text.Text); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestFitTotal(t *testing.T) {
	tests := []struct {
		name      string
		blocks    int
		textEach  int
		wantLen   int
		wantNote  string
		wantTotal int
	}{
		{"within limits", 10, 100, 10, "", 0},
		{"too many blocks", 80, 10, 50, "… 31 more blocks, see `hint`", 0},
		{"too much text", 10, 2000, 6, "… 5 more blocks, see `hint`", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []slack.Block
			for range tt.blocks {
				in = append(in, slack.NewSectionBlock(mrkdwn(strings.Repeat("y", tt.textEach)), nil, nil))
			}
			got := Fit(in, "hint")
			if v := Check(got); len(v) > 0 {
				t.Errorf("Check = %v", v)
			}
			if len(got) != tt.wantLen {
				t.Errorf("%d blocks, want %d", len(got), tt.wantLen)
			}
			if tt.wantNote == "" {
				return
			}
			last, ok := got[len(got)-1].(*slack.ContextBlock)
			if !ok {
				t.Fatalf("last block %T, want the note", got[len(got)-1])
			}
			if diff := cmp.Diff(tt.wantNote, last.ContextElements.Elements[0].(*slack.TextBlockObject).Text); diff != "" {
				t.Errorf("note (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReportHuge renders a report far beyond every limit and checks that
// the result is valid and says where the rest is.
func TestReportHuge(t *testing.T) {
	r := waitingForQuota()
	r.Verdict.Headline = strings.Repeat("very long headline ", 20)
	r.Verdict.Detail = strings.Repeat("detail & <more> ", 400)
	row := r.Quota[0]
	r.Quota = nil
	for range 150 {
		r.Quota = append(r.Quota, row)
	}
	for i := range 200 {
		r.Findings = append(r.Findings, diagnose.Finding{Severity: diagnose.SeverityWarning, Message: fmt.Sprintf("finding %d %s", i, strings.Repeat("z", 100))})
		r.Evidence = append(r.Evidence, diagnose.Evidence{Source: "Pod/p", Kind: "Event", Message: strings.Repeat("e", 1000)})
	}
	for _, opts := range []Options{{}, {NoTable: true}} {
		t.Run(fmt.Sprintf("NoTable=%v", opts.NoTable), func(t *testing.T) {
			m := Report(r, opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Fatalf("Check = %v", v)
			}
			txt := Text(m.Blocks)
			if !strings.Contains(txt, "see `kueuebot diagnose jobset/train-7 -n team-a -o text`") {
				t.Errorf("no pointer to the full report in:\n%s", txt)
			}
			if !opts.NoTable && !strings.Contains(txt, "… 51 more rows") {
				t.Errorf("no row note in:\n%s", txt)
			}
		})
	}
}

func selectOf(n int, text func(i int) string, value func(i int) string) *slack.SelectBlockElement {
	opts := make([]*slack.OptionBlockObject, n)
	for i := range n {
		opts[i] = slack.NewOptionBlockObject(value(i), plain(text(i)), nil)
	}
	return slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Pick"), "pick", opts...)
}

func TestFitSelect(t *testing.T) {
	sel := selectOf(140,
		func(i int) string { return strings.Repeat("t", 70+i%10) },
		func(i int) string {
			if i%4 == 0 {
				return strings.Repeat("v", MaxOptionValue+1) // dropped, not cut
			}
			return fmt.Sprintf("v%d", i)
		})
	in := []slack.Block{
		slack.NewActionBlock("a", sel),
		slack.NewSectionBlock(mrkdwn("x"), nil, slack.NewAccessory(selectOf(101, func(int) string { return "o" }, func(i int) string { return fmt.Sprint(i) }))),
		slack.NewSectionBlock(mrkdwn("y"), nil, slack.NewAccessory(button(strings.Repeat("b", 80), "id", "v"))),
		slack.NewSectionBlock(mrkdwn("z"), nil, slack.NewAccessory(button("b", "id", strings.Repeat("v", MaxButtonValue+1)))),
	}
	if v := Check(in); len(v) == 0 {
		t.Fatal("Check passes blocks that break the limits")
	}
	out := Fit(in, "")
	if v := Check(out); len(v) > 0 {
		t.Errorf("Check(Fit): %v", v)
	}
	got := out[0].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.SelectBlockElement)
	if len(got.Options) != MaxSelectOptions {
		t.Errorf("%d options kept, want %d", len(got.Options), MaxSelectOptions)
	}
	for _, o := range got.Options {
		if runeLen(o.Value) > MaxOptionValue || runeLen(o.Text.Text) > MaxOptionText {
			t.Errorf("option %q/%q not fit", o.Value, o.Text.Text)
		}
	}
	if got.Options[0].Value != "v1" {
		t.Errorf("first option %q, want v1 (v0's value does not fit)", got.Options[0].Value)
	}
	if a := out[2].(*slack.SectionBlock).Accessory; a == nil || runeLen(a.ButtonElement.Text.Text) > MaxButtonText {
		t.Error("accessory button text not fit")
	}
	if a := out[3].(*slack.SectionBlock).Accessory; a != nil {
		t.Error("an accessory whose value does not fit must be dropped")
	}
	// The input is not modified.
	if len(sel.Options) != 140 {
		t.Error("Fit modified its input")
	}
}

func TestCheckElements(t *testing.T) {
	dup := slack.NewActionBlock("a", button("x", "same", "1"), button("y", "same", "2"))
	mrkdwnButton := slack.NewButtonBlockElement("b", "v", mrkdwn("x"))
	longConfirm := button("x", "c", "v")
	longConfirm.Confirm = slack.NewConfirmationBlockObject(plain(strings.Repeat("t", 101)), plain("ok"), plain("yes"), plain("no"))
	dupValues := selectOf(2, func(int) string { return "o" }, func(int) string { return "same" })
	tests := []struct {
		name string
		in   []slack.Block
		want string
	}{
		{"duplicate action ids", []slack.Block{dup}, `action_id "same" used twice`},
		{"duplicate block ids", []slack.Block{slack.NewActionBlock("a", button("x", "1", "")), slack.NewActionBlock("a", button("y", "2", ""))}, `block_id "a" used twice`},
		{"mrkdwn button", []slack.Block{slack.NewActionBlock("", mrkdwnButton)}, "button text must be plain_text"},
		{"long confirm title", []slack.Block{slack.NewActionBlock("", longConfirm)}, "confirm title 101"},
		{"duplicate option values", []slack.Block{slack.NewActionBlock("", dupValues)}, `option value "same" used twice`},
		{"empty static select", []slack.Block{slack.NewActionBlock("", selectOf(0, nil, nil))}, "0 select options"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Check(tt.in)
			if !strings.Contains(strings.Join(v, "\n"), tt.want) {
				t.Errorf("Check = %v, want %q", v, tt.want)
			}
		})
	}
}

func TestFitView(t *testing.T) {
	var in []slack.Block
	for i := range 150 {
		in = append(in, slack.NewSectionBlock(mrkdwn(fmt.Sprintf("job %d %s", i, strings.Repeat("x", 200))), nil, nil))
	}
	if v := CheckView(in); len(v) == 0 {
		t.Fatal("CheckView passes 150 blocks")
	}
	out := FitView(in, "hint")
	if len(out) != MaxViewBlocks || len(CheckView(out)) > 0 {
		t.Errorf("FitView: %d blocks, %v", len(out), CheckView(out))
	}
	if !strings.Contains(Text(out[len(out)-1:]), "51 more blocks") {
		t.Errorf("last block %q does not count what was cut", Text(out[len(out)-1:]))
	}
	// Messages stay at 50 blocks and 12k characters.
	if got := Fit(in, ""); len(got) > MaxBlocks || totalText(got) > MaxTotalText {
		t.Errorf("Fit: %d blocks, %d characters", len(got), totalText(got))
	}
}

// TestFitKeepsWhatFits: on blocks that break no limit Fit changes nothing,
// so a caller outside this package may compare its blocks with their Fit to
// know they break none.
func TestFitKeepsWhatFits(t *testing.T) {
	for _, c := range caseReports(t) {
		for _, opts := range []AnswerOptions{{}, {Detailed: true, Shareable: true}} {
			m := Answer(c.r, opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Fatalf("%s: Check: %v", c.name, v)
			}
			if diff := cmp.Diff(m.Blocks, Fit(m.Blocks, "")); diff != "" {
				t.Errorf("%s: Fit changed blocks that fit (-in +out):\n%s", c.name, diff)
			}
		}
	}
}
