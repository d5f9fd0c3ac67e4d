package bot

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRequest(t *testing.T) {
	diag := func(kind, name, ns string) Request {
		return Request{Intent: IntentDiagnose, Kind: kind, Name: name, Namespace: ns}
	}
	help := Request{Intent: IntentHelp}
	tests := []struct {
		name string
		in   string
		want Request
	}{
		{"sentence", "why is my job train-7 waiting?", diag("", "train-7", "")},
		{"mention", "<@U0123ABC> train-7", diag("", "train-7", "")},
		{"mention with label", "<@U0123ABC|kueuebot> why is train-7 stuck", diag("", "train-7", "")},
		{"bare name", "train-7", diag("", "train-7", "")},
		{"typed at-mention", "@kueuebot train-7", diag("", "train-7", "")},
		{"kind slash name and flag", "diagnose jobset/foo -n team-a", diag("JobSet", "foo", "team-a")},
		{"kind word and in ns", "what about rayjob my-ray in ns team-b", diag("RayJob", "my-ray", "team-b")},
		{"in namespace", "why is train-7 pending in namespace team-b?", diag("", "train-7", "team-b")},
		{"in bare namespace", "is train-7 stuck in team-b", diag("", "train-7", "team-b")},
		{"in the queue is a noun", "why is my job train-7 stuck in the queue?", diag("", "train-7", "")},
		{"slash command text", "/kueue train-7", diag("", "train-7", "")},
		{"backticks", "`/kueue train-7`", diag("", "train-7", "")},
		{"code block", "```train-7```", diag("", "train-7", "")},
		{"namespace slash name", "team-a/train-7", diag("", "train-7", "team-a")},
		{"kind namespace name", "jobset/team-a/train-7", diag("JobSet", "train-7", "team-a")},
		{"group qualified kind", "jobs.batch/train-7", diag("Job", "train-7", "")},
		{"plural group qualified kind", "jobsets.jobset.x-k8s.io/train-7 --namespace=ml", diag("JobSet", "train-7", "ml")},
		{"job slash name", "job/stuck", diag("Job", "stuck", "")},
		{"namespace flag glued", "train-7 -nteam-a", diag("", "train-7", "team-a")},
		{"namespace flag equals", "train-7 -n=team-a", diag("", "train-7", "team-a")},
		{"namespace word", "train-7 namespace team-a", diag("", "train-7", "team-a")},
		{"pod", "why is pod web-0 pending", diag("Pod", "web-0", "")},
		{"workload", "wl job-train-7-1a2b3 -n team-a", diag("Workload", "job-train-7-1a2b3", "team-a")},
		{"possessive", "what's up with train-7's queue position?", diag("", "train-7", "")},
		{"dotted name", "why is my job train.v2 waiting", diag("", "train.v2", "")},
		{"same name twice", "train-7 train-7", diag("", "train-7", "")},
		{"mailto label counts as a word", "<mailto:bob@example.com|bob@example.com> train-7", Request{}},
		{"zero width space", "train\u200b-7", diag("", "train-7", "")},
		{"smart quotes", "why is “train-7” waiting?", diag("", "train-7", "")},
		{"uppercase keywords", "WHY IS JOBSET train-7 WAITING", diag("JobSet", "train-7", "")},
		{"queue", "queue team-a", Request{Intent: IntentQueue, Kind: "LocalQueue", Name: "team-a"}},
		{"queue in sentence", "what about queue team-a", Request{Intent: IntentQueue, Kind: "LocalQueue", Name: "team-a"}},
		{"clusterqueue", "clusterqueue cq-gpu", Request{Intent: IntentQueue, Kind: "ClusterQueue", Name: "cq-gpu"}},
		{"localqueue slash", "localqueue/team-a -n ml", Request{Intent: IntentQueue, Kind: "LocalQueue", Name: "team-a", Namespace: "ml"}},
		{"help", "help", help},
		{"help with mention", "<@U0123ABC> help", help},
		{"dash dash help", "--help", help},
		{"empty", "", help},
		{"only mention", "<@U0123ABC>", help},
		{"greeting", "hey there?", help},
		{"question mark", "?", help},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest(tt.in)
			if tt.want == (Request{}) {
				if err == nil {
					t.Fatalf("ParseRequest(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRequest(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRequest(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// wantMsg are substrings the user-facing message must contain.
		wantMsg []string
	}{
		{"no name", "why is my job waiting?", []string{"could not find a job name", "why is train-7 waiting?"}},
		{"two names", "train-7 train-8", []string{"`train-7`", "`train-8`", "job/NAME"}},
		{"uppercase name", "Train-7", []string{"not a valid Kubernetes name", "Did you mean `train-7`?"}},
		{"underscore", "train_7", []string{"not a valid Kubernetes name"}},
		{"bad namespace", "train-7 -n Team_A", []string{"not a valid namespace"}},
		{"namespace too long", "train-7 -n " + strings.Repeat("a", 64), []string{"not a valid namespace"}},
		{"missing namespace", "train-7 -n", []string{"`-n` needs a namespace"}},
		{"empty namespace flag", "train-7 --namespace=", []string{"`-n` needs a namespace"}},
		{"two namespaces", "train-7 -n a -n b", []string{"two namespaces"}},
		{"two kinds", "jobset/train-7 rayjob train-7", []string{"two kinds"}},
		{"unknown flag", "train-7 -o json", []string{"do not know the option `-o`"}},
		{"too many slashes", "a/b/c/d", []string{"`kind/name` or `namespace/name`"}},
		{"queue without name", "queue", []string{"Which queue?"}},
		{"queue and kind", "queue team-a jobset/x", []string{"queue or about a job"}},
		{"too long", strings.Repeat("x", MaxQuestionLen+1), []string{"too long"}},
		{"invalid utf8", "train-7 \xff", []string{"could not read"}},
		// Hostile input: markup that survives stripping must come back escaped.
		{"html in name", "train&lt;script&gt;", []string{"`train&lt;script&gt;`", "not a valid"}},
		{"channel ping in name", "x&lt;!channel&gt;", []string{"&lt;!channel&gt;"}},
		{"shell injection", "train-7;rm -rf /", []string{"do not know the option `-rf`"}},
		{"command substitution", "$(reboot)", []string{"`$(reboot`", "not a valid"}},
		{"control characters", "train\x07-7", []string{"`train-7`", "not a valid"}},
		{"very long name", strings.Repeat("a", 254), []string{"…`", "not a valid"}},
		{"lookalike letters", "trаin-7", []string{"not a valid Kubernetes name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest(tt.in)
			if err == nil {
				t.Fatalf("ParseRequest(%q) = %+v, want an error", tt.in, got)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseRequest(%q) error %T, want *ParseError", tt.in, err)
			}
			msg := pe.UserMessage()
			for _, w := range tt.wantMsg {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if strings.ContainsAny(msg, "<>") {
				t.Errorf("message %q contains unescaped < or >", msg)
			}
		})
	}
}

func TestStripSlackMarkup(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"user mention", "<@U1> hi", "  hi"},
		{"special mention", "<!channel> <!subteam^S1|@ops>", "   "},
		{"channel", "<#C1|general>x", " x"},
		{"link with label", "<https://example.com|example>", " example "},
		{"bare link", "<https://example.com>", " https://example.com "},
		{"entities decoded last", "&lt;!channel&gt; &amp;", "<!channel> &"},
		{"backticks", "`a` ```b```", " a     b   "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, StripSlackMarkup(tt.in)); diff != "" {
				t.Errorf("StripSlackMarkup(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestRequestString(t *testing.T) {
	r := Request{Intent: IntentDiagnose, Kind: "JobSet", Name: "train-7", Namespace: "team-a"}
	if diff := cmp.Diff("jobset/train-7 -n team-a", r.String()); diff != "" {
		t.Errorf("String() (-want +got):\n%s", diff)
	}
}
