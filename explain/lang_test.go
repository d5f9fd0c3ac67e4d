package explain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "explain.")
}

// TestNoProseOutsideCatalog: the errors, notes and remedies explain
// returns for the user are built through the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	// Not converted yet: the reasons an estimate is incomplete
	// (diagnose.ForecastInput's English strings) and a worker report's
	// Error, which the report carries as English.
	allow := []i18ntest.Allow{
		{File: "estimate.go", Text: "you may not list them"},
		{File: "estimate.go", Text: "the API server did not answer in time"},
		{File: "estimate.go", Text: "the Workloads of other namespaces (you may not list them)"},
		{File: "workers.go", Text: "I am not configured to read worker cluster %s, so I cannot say what happens to the job there."},
	}
	for _, p := range i18ntest.ProseLiterals(t, ".", allow) {
		t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
	}
}

// TestErrorsInEachLanguage: explain's errors for the user keep their
// English (Message, UserMessage) and render in French, Japanese and
// Chinese (UserMessageIn) with no English prose besides the names,
// commands and the clusters' own error texts they quote.
func TestErrorsInEachLanguage(t *testing.T) {
	f, err := NewFleet([]*Cluster{
		{Name: "gpu-west", Explainer: &Explainer{Reader: failingReader{}}},
		{Name: "gpu-east", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := rbac.Identity{User: "alice"}
	_, queuesErr := f.Queues(t.Context(), id, QueuesQuery{})
	_, jobsErr := f.Jobs(t.Context(), id, JobsQuery{})
	_, explainErr := f.Explain(t.Context(), id, Question{Name: "train-7"})
	_, unknownErr := f.Queues(t.Context(), id, QueuesQuery{Cluster: "nowhere"})
	_, noNameErr := f.Explain(t.Context(), id, Question{})
	_, dumpErr := (&Explainer{Reader: failingReader{}}).Check(t.Context(), id, CheckRequest{Manifest: []byte("kind: Job\n")})
	tests := []struct {
		name    string
		err     error
		english string
	}{
		{"queues", queuesErr, "I could not list your queues: "},
		{"jobs", jobsErr, "I could not list your jobs: "},
		{"explain", explainErr, "I could not look for train-7: "},
		{"unknown cluster", unknownErr, "I don't know a cluster called nowhere. The clusters I read are: gpu-west, gpu-east."},
		{"no name", noNameErr, "Tell me which job to look at, e.g. `why is train-7 waiting?`"},
		{"dump", dumpErr, "Checking a manifest needs a cluster to compare it with"},
	}
	for _, tt := range tests {
		var ue *Error
		if !errors.As(tt.err, &ue) || ue.Msg.IsZero() {
			t.Errorf("%s: %v, want an *Error with a message", tt.name, tt.err)
			continue
		}
		if !strings.HasPrefix(ue.UserMessage(), tt.english) || ue.UserMessageIn(i18n.English) != ue.UserMessage() {
			t.Errorf("%s: English %q, want it to start with %q", tt.name, ue.UserMessage(), tt.english)
		}
		verbatim := append(ue.Msg.Verbatims(), "connection refused", "train-7", "Job", "Job b")
		for _, l := range i18n.All()[1:] {
			got := ue.UserMessageIn(l)
			if got == ue.Message {
				t.Errorf("%s: %s is the English: %q", tt.name, l, got)
			}
			i18ntest.AssertTranslated(t, l, got, verbatim...)
		}
	}
}
