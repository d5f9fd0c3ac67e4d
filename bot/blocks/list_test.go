package blocks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
)

// listReports are real reports of several verdicts, each renamed after its
// case so the lines differ, in two namespaces.
func listReports(t *testing.T, n int) []diagnose.Report {
	t.Helper()
	cases := caseReports(t)
	out := make([]diagnose.Report, 0, n)
	for i := range n {
		c := cases[i%len(cases)]
		r := c.r
		if r.Target.Namespace == "" || r.Target.Kind == "" {
			r.Target.Namespace, r.Target.Kind = "team-a", "Job"
		}
		r.Target.Name = c.name
		if i >= len(cases) {
			r.Target.Name = fmt.Sprintf("%s-%d", c.name, i)
		}
		if i%3 == 2 {
			r.Target.Namespace = "team-b"
		}
		out = append(out, r)
	}
	return out
}

func viewJSON(t *testing.T, v slack.HomeTabViewRequest) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pickerOf returns the static_select of a list.
func pickerOf(bl []slack.Block) *slack.SelectBlockElement {
	for _, b := range bl {
		if a, ok := b.(*slack.ActionBlock); ok && a.BlockID == BlockPicker {
			return a.Elements.ElementSet[0].(*slack.SelectBlockElement)
		}
	}
	return nil
}

func TestJobListGolden(t *testing.T) {
	tests := []struct {
		name string
		jobs []diagnose.Report
		opts ListOptions
	}{
		{"jobs", listReports(t, 8), ListOptions{Namespaces: []string{"team-a", "team-b"}}},
		{"jobs_capped", listReports(t, 30), ListOptions{MaxLines: 5, Namespaces: []string{"a", "b", "c", "d", "e", "f", "g"}, Truncated: true}},
		{"jobs_one", listReports(t, 1), ListOptions{Namespaces: []string{"team-a"}}},
		{"jobs_none", nil, ListOptions{Namespaces: []string{"team-a", "team-b"}}},
		{"jobs_estimates", []diagnose.Report{withEstimate(waitingForQuota()), withNoEstimate(waitingForQuota())}, ListOptions{Namespaces: []string{"team-a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := JobList(tt.jobs, tt.opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Errorf("Check: %v", v)
			}
			checkNoMarkup(t, m)
			checkGolden(t, filepath.Join("list", tt.name+".json"), messageJSON(t, m))
			checkGolden(t, filepath.Join("list", tt.name+".txt"), []byte(Text(m.Blocks)))
		})
	}
}

func TestJobListPicker(t *testing.T) {
	jobs := listReports(t, 150)
	// A job whose ref does not fit an option value is listed but not offered.
	long := jobs[0]
	long.Target.Name = strings.Repeat("x", 140)
	// A report without a complete job cannot be offered either.
	partial := jobs[1]
	partial.Target.Kind = ""
	jobs = append([]diagnose.Report{long, partial}, jobs...)
	m := JobList(jobs, ListOptions{MaxLines: 1000})
	if v := Check(m.Blocks); len(v) > 0 {
		t.Errorf("Check: %v", v)
	}
	sel := pickerOf(m.Blocks)
	if sel == nil {
		t.Fatal("no picker")
	}
	if sel.ActionID != ActionPick || sel.Type != slack.OptTypeStatic {
		t.Errorf("picker %s %s, want static_select %s", sel.Type, sel.ActionID, ActionPick)
	}
	if len(sel.Options) != MaxSelectOptions {
		t.Errorf("%d options, want %d", len(sel.Options), MaxSelectOptions)
	}
	for i, o := range sel.Options {
		ref, err := ParseJobRef(o.Value)
		if err != nil {
			t.Fatalf("option %d: %v", i, err)
		}
		if want := jobs[i+2]; ref.Name != want.Target.Name || ref.Namespace != want.Target.Namespace {
			t.Errorf("option %d opens %v, want the jobs in the order given (%s)", i, ref, want.Target.Name)
		}
	}
	if _, ok := m.Blocks[len(m.Blocks)-1].(*slack.ActionBlock); !ok {
		t.Error("the picker was cut")
	}
	if !strings.Contains(Text(m.Blocks), "more") {
		t.Error("the cut is not said")
	}
}

func TestJobListHostile(t *testing.T) {
	const evil = "<!channel> a&b ```x``` <@U1>"
	r := waitingForQuota()
	r.Verdict.Headline = "headline " + evil
	r.Verdict.Code = diagnose.Code("Code" + evil)
	r.Target.Name = "name" + evil
	r.Target.Namespace = "ns" + evil
	ok := waitingForQuota()
	m := JobList([]diagnose.Report{r, ok}, ListOptions{Namespaces: []string{"ns" + evil}})
	checkNoMarkup(t, m)
	if sel := pickerOf(m.Blocks); sel == nil || len(sel.Options) != 1 {
		t.Errorf("picker should offer the one valid job only")
	}
	home := HomeView([]diagnose.Report{r, ok}, ListOptions{Namespaces: []string{"ns" + evil}})
	checkNoMarkup(t, Message{Text: "x", Blocks: home.Blocks.BlockSet})
}

func TestHomeViewGolden(t *testing.T) {
	tests := []struct {
		name string
		jobs []diagnose.Report
		opts ListOptions
	}{
		{"home", listReports(t, 6), ListOptions{Namespaces: []string{"team-a", "team-b"}}},
		{"home_empty", nil, ListOptions{Namespaces: []string{"team-a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := HomeView(tt.jobs, tt.opts)
			if v.Type != slack.VTHomeTab {
				t.Errorf("view type %q", v.Type)
			}
			if errs := CheckView(v.Blocks.BlockSet); len(errs) > 0 {
				t.Errorf("CheckView: %v", errs)
			}
			checkGolden(t, filepath.Join("list", tt.name+".json"), viewJSON(t, v))
			checkGolden(t, filepath.Join("list", tt.name+".txt"), []byte(Text(v.Blocks.BlockSet)))
		})
	}
}

func TestHomeViewLimit(t *testing.T) {
	for _, n := range []int{90, 95, 96, 97, 150, 400} {
		v := HomeView(listReports(t, n), ListOptions{})
		bl := v.Blocks.BlockSet
		if errs := CheckView(bl); len(errs) > 0 {
			t.Errorf("%d jobs: CheckView: %v", n, errs)
		}
		if len(bl) > MaxViewBlocks {
			t.Errorf("%d jobs: %d blocks", n, len(bl))
		}
		text := Text(bl)
		if !strings.Contains(text, "/kueue help") {
			t.Errorf("%d jobs: the footer was cut", n)
		}
		if sel := pickerOf(bl); sel == nil || len(sel.Options) != min(n, MaxSelectOptions) {
			t.Errorf("%d jobs: picker missing or short", n)
		}
		if shown := strings.Count(text, "\n`"); n > 90 && !strings.Contains(text, "more. Pick one above") {
			t.Errorf("%d jobs: %d shown and the rest not counted", n, shown)
		}
	}
	if got := len(HomeView(listReports(t, 50), ListOptions{MaxLines: 3}).Blocks.BlockSet); got > 12 {
		t.Errorf("MaxLines 3: %d blocks", got)
	}
}
