package bot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/bot/parse"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/kinds"
)

func TestRequestQuestionCarriesCandidates(t *testing.T) {
	r, err := parse.Text("为什么 sample-job 和 train-7 在等待？ -n team-a")
	if err != nil {
		t.Fatal(err)
	}
	want := explain.Question{Name: "sample-job", Namespace: "team-a", Candidates: []string{"sample-job", "train-7"}}
	if diff := cmp.Diff(want, questionOf(r)); diff != "" {
		t.Errorf("questionOf (-want +got):\n%s", diff)
	}
	q := questionOf(r)
	q.Candidates[0] = "changed"
	if r.Candidates[0] != "sample-job" {
		t.Error("questionOf shares its Candidates with the Request")
	}
}

func TestHelpNamesEveryKind(t *testing.T) {
	text := helpText(i18n.English)
	for _, k := range kinds.All() {
		if !strings.Contains(text, k.Names[0]) {
			t.Errorf("help does not mention %s", k.Names[0])
		}
	}
}
