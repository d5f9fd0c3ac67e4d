package parse

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kueuebot/kueuebot/kinds"
)

// ignoreLang leaves the question's language to TestLanguage, and the list
// and word hints to TestListHints.
var ignoreLang = cmpopts.IgnoreFields(Request{}, "Lang", "LangKnown", "List", "Word")

// TestListHints: the words that ask for a list beside a name (List), and
// the bare word of /kueue jobs (Word), which the asker takes for a
// configured cluster's name when it is one.
func TestListHints(t *testing.T) {
	for _, tt := range []struct {
		in      string
		command bool
		want    Request
	}{
		{"my jobs on gpu-west", false, Request{Intent: IntentDiagnose, Name: "gpu-west", List: IntentJobs}},
		{"mes jobs sur gpu-west", false, Request{Intent: IntentDiagnose, Name: "gpu-west", List: IntentJobs}},
		{"queues on gpu-west", false, Request{Intent: IntentDiagnose, Name: "gpu-west", List: IntentQueues}},
		{"why is train-7 waiting", false, Request{Intent: IntentDiagnose, Name: "train-7"}},
		{"jobs gpu-west", true, Request{Intent: IntentJobs, Namespace: "gpu-west", Word: "gpu-west"}},
		{"jobs -n gpu-west", true, Request{Intent: IntentJobs, Namespace: "gpu-west"}},
	} {
		parse := Text
		if tt.command {
			parse = Command
		}
		got, err := parse(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		got.Candidates = nil
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Request{}, "Lang", "LangKnown")); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

func diag(kind, name, ns string, cands ...string) Request {
	return Request{Intent: IntentDiagnose, Kind: kind, Name: name, Namespace: ns, Candidates: cands}
}

var (
	help   = Request{Intent: IntentHelp}
	jobs   = Request{Intent: IntentJobs}
	queues = Request{Intent: IntentQueues}
)

func jobsIn(ns string) Request { return Request{Intent: IntentJobs, Namespace: ns} }

type parseCase struct {
	name string
	in   string
	want Request
}

func runParseCases(t *testing.T, parse func(string) (Request, error), tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(tt.in)
			if err != nil {
				t.Fatalf("parse(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreLang); diff != "" {
				t.Errorf("parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	runParseCases(t, Text, []parseCase{
		{"sentence", "why is my job train-7 waiting?", diag("", "train-7", "")},
		{"mention", "<@U0123ABC> train-7", diag("", "train-7", "")},
		{"mention with label", "<@U0123ABC|kueuebot> why is train-7 stuck", diag("", "train-7", "")},
		{"bare name", "train-7", diag("", "train-7", "")},
		{"bare word name", "sample", diag("", "sample", "")},
		{"typed at-mention", "@kueuebot train-7", diag("", "train-7", "")},
		{"kind slash name and flag", "diagnose jobset/foo -n team-a", diag("JobSet", "foo", "team-a")},
		{"kind word and in ns", "what about rayjob my-ray in ns team-b", diag("RayJob", "my-ray", "team-b")},
		{"in namespace", "why is train-7 pending in namespace team-b?", diag("", "train-7", "team-b")},
		{"in bare namespace", "is train-7 stuck in team-b", diag("", "train-7", "team-b")},
		{"in the queue is a noun", "why is my job train-7 stuck in the queue?", diag("", "train-7", "")},
		{"slash command text", "/kueue train-7", diag("", "train-7", "")},
		{"slash command verb in text", "/kueue why train-7", diag("", "train-7", "")},
		{"backticks", "`/kueue train-7`", diag("", "train-7", "")},
		{"code block", "```train-7```", diag("", "train-7", "")},
		{"namespace slash name", "team-a/train-7", diag("", "train-7", "team-a")},
		{"kind namespace name", "jobset/team-a/train-7", diag("JobSet", "train-7", "team-a")},
		{"button form namespace kind name", "team-a/JobSet/train-7", diag("JobSet", "train-7", "team-a")},
		{"group qualified kind", "jobs.batch/train-7", diag("Job", "train-7", "")},
		{"plural group qualified kind", "jobsets.jobset.x-k8s.io/train-7 --namespace=ml", diag("JobSet", "train-7", "ml")},
		{"short kind name", "aw/train-7", diag("AppWrapper", "train-7", "")},
		{"job slash name", "job/stuck", diag("Job", "stuck", "")},
		{"namespace flag glued", "train-7 -nteam-a", diag("", "train-7", "team-a")},
		{"namespace flag equals", "train-7 -n=team-a", diag("", "train-7", "team-a")},
		{"namespace word", "train-7 namespace team-a", diag("", "train-7", "team-a")},
		{"pod", "why is pod web-0 pending", diag("Pod", "web-0", "")},
		{"workload", "wl job-train-7-1a2b3 -n team-a", diag("Workload", "job-train-7-1a2b3", "team-a")},
		{"short kind word before a plain word is not a kind", "aw man, why is train-7 stuck?", diag("", "train-7", "", "train-7", "man")},
		{"possessive", "what's up with train-7's queue position?", diag("", "train-7", "")},
		{"dotted name", "why is my job train.v2 waiting", diag("", "train.v2", "")},
		{"same name twice", "train-7 train-7", diag("", "train-7", "")},
		{"zero width space", "train\u200b-7", diag("", "train-7", "")},
		{"smart quotes", "why is “train-7” waiting?", diag("", "train-7", "")},
		{"uppercase keywords", "WHY IS JOBSET train-7 WAITING", diag("JobSet", "train-7", "")},
		{"link label", "why is <https://dash.example/jobs/train-7|train-7> waiting", diag("", "train-7", "")},
		{"bare link is not a name", "why is train-7 waiting? <https://dash.example/jobs/x>", diag("", "train-7", "")},
		{"email is not a name", "<mailto:bob@example.com|bob@example.com> train-7", diag("", "train-7", "")},
		{"bold and italic", "why is *train-7* _still_ waiting", diag("", "train-7", "")},
		{"html entities decoded", "train-7 &amp; co", diag("", "train-7", "", "train-7", "co")},

		// Several words could be the name: all of them, ranked.
		{"two names", "train-7 train-8", diag("", "train-7", "", "train-7", "train-8")},
		{"shaped name before plain word", "why is train-7 waiting for resnet", diag("", "train-7", "", "train-7", "resnet")},
		{"plain word after shaped name", "is resnet blocked by train-7?", diag("", "train-7", "", "train-7", "resnet")},
		{"name after a job word is certain", "why is my job bert stuck behind train-7?", diag("", "bert", "")},
		{"explicit beats the rest", "is jobset/bert waiting for train-7", diag("JobSet", "bert", "")},
		{"two explicit names", "team-a/a team-a/b", diag("", "a", "team-a", "a", "b")},
		{"invalid words are skipped when a better name exists", "Why is train-7 waiting Today", diag("", "train-7", "")},

		// The caller's jobs.
		{"my jobs", "my jobs", jobs},
		{"list my jobs", "list my jobs", jobs},
		{"list my jobs mention", "<@U0BOT> list my jobs", jobs},
		{"what are my jobs", "what are my jobs?", jobs},
		{"show jobs", "show jobs", jobs},
		{"jobs", "jobs", jobs},
		{"list", "list", jobs},
		{"no job named", "why is my job waiting?", jobs},
		{"waiting names nothing", "why is it still pending?", jobs},
		{"jobs in namespace", "my jobs in team-a", jobsIn("team-a")},
		{"jobs with flag", "jobs -n team-a", jobsIn("team-a")},
		{"only a namespace", "-n team-a", jobsIn("team-a")},
		{"kind word without name", "why is my jobset waiting?", jobs},

		// Queues.
		{"my queues", "my queues", queues},
		{"queues", "queues", queues},
		{"queue alone", "queue", queues},
		{"queues in namespace", "show my queues in team-a", Request{Intent: IntentQueues, Namespace: "team-a"}},
		{"queue", "queue team-a", Request{Intent: IntentQueues, Kind: "LocalQueue", Name: "team-a"}},
		{"queue in sentence", "what about queue team-a", Request{Intent: IntentQueues, Kind: "LocalQueue", Name: "team-a"}},
		{"clusterqueue", "clusterqueue cq-gpu", Request{Intent: IntentQueues, Kind: "ClusterQueue", Name: "cq-gpu"}},
		{"localqueue slash", "localqueue/team-a -n ml", Request{Intent: IntentQueues, Kind: "LocalQueue", Name: "team-a", Namespace: "ml"}},

		// Help.
		{"help", "help", help},
		{"help with mention", "<@U0123ABC> help", help},
		{"dash dash help", "--help", help},
		{"empty", "", help},
		{"only mention", "<@U0123ABC>", help},
		{"greeting", "hey there?", help},
		{"thanks", "thanks!", help},
		{"question mark", "?", help},
		{"only punctuation", "？！。「」", help},
		{"only markup", "<!channel> <!here> <#C1|general>", help},
	})
}

// TestParseRequestLanguages asks the same things in English, French,
// Japanese and Chinese (and a little Korean, German and Spanish).
func TestParseRequestLanguages(t *testing.T) {
	runParseCases(t, Text, []parseCase{
		// French
		{"fr issue example", "pourquoi mon job sample-job est en attente ?", diag("", "sample-job", "")},
		{"fr no job word", "pourquoi sample-job attend-il ?", diag("", "sample-job", "", "sample-job", "attend-il")},
		{"fr elision", "qu'est-ce qui bloque l'exécution de sample-job ?", diag("", "sample-job", "")},
		{"fr guillemets", "pourquoi « sample-job » est bloqué ?", diag("", "sample-job", "")},
		{"fr namespace dans", "pourquoi sample-job est en attente dans team-a ?", diag("", "sample-job", "team-a")},
		{"fr tâche", "ma tâche sample-job est coincée", diag("", "sample-job", "")},
		{"fr kind", "pourquoi le jobset train-7 attend", diag("JobSet", "train-7", "")},
		{"fr mes jobs", "mes jobs", jobs},
		{"fr lister mes tâches", "lister mes tâches", jobs},
		{"fr mes files d'attente", "mes files d'attente", queues},
		{"fr aide", "aide", help},
		{"fr bonjour", "bonjour !", help},
		{"fr no-break space before punctuation", "pourquoi sample-job attend\u00a0?", diag("", "sample-job", "")},

		// Japanese
		{"ja issue example", "sample-job はなぜ待っているの？", diag("", "sample-job", "")},
		{"ja no spaces", "sample-jobはなぜ待っているの？", diag("", "sample-job", "")},
		{"ja job word before", "ジョブsample-jobが動きません", diag("", "sample-job", "")},
		{"ja brackets", "「sample-job」が止まっている理由は？", diag("", "sample-job", "")},
		{"ja full-width name", "ｓａｍｐｌｅ－ｊｏｂ はなぜ待っているの？", diag("", "sample-job", "")},
		{"ja full-width space and parens", "ジョブ（sample-job）\u3000はなぜ？", diag("", "sample-job", "")},
		{"ja namespace word", "名前空間 team-a の sample-job はなぜ待っているの", diag("", "sample-job", "team-a")},
		{"ja flag", "sample-job -n team-a はなぜ待機中？", diag("", "sample-job", "team-a")},
		{"ja kind", "jobset/train-7 はなぜ保留？", diag("JobSet", "train-7", "")},
		{"ja my jobs", "私のジョブ", jobs},
		{"ja job list", "ジョブ一覧を見せて", jobs},
		{"ja queues", "キュー", queues},
		{"ja my queues", "私のキューを表示", queues},
		{"ja help", "ヘルプ", help},
		{"ja how to use", "使い方を教えて", help},
		{"ja greeting", "こんにちは！", help},
		{"ja mention", "<@U0BOT> sample-job はなぜ待っているの？", diag("", "sample-job", "")},

		// Chinese
		{"zh issue example", "为什么 sample-job 在等待？", diag("", "sample-job", "")},
		{"zh no spaces", "为什么sample-job在等待？", diag("", "sample-job", "")},
		{"zh job word", "我的作业sample-job为什么卡住了？", diag("", "sample-job", "")},
		{"zh task word", "任务 sample-job 一直在排队", diag("", "sample-job", "")},
		{"zh full-width comma", "请问，sample-job，为什么还在等待？", diag("", "sample-job", "")},
		{"zh traditional", "為什麼sample-job還在等待？", diag("", "sample-job", "")},
		{"zh namespace", "命名空间team-a里的sample-job为什么在等待", diag("", "sample-job", "team-a")},
		{"zh two names", "sample-job和train-7为什么在等待", diag("", "sample-job", "", "sample-job", "train-7")},
		{"zh my jobs", "我的作业", jobs},
		{"zh my tasks", "我的任务", jobs},
		{"zh job list", "列出我的作业", jobs},
		{"zh queues", "队列", queues},
		{"zh my queues", "我的队列", queues},
		{"zh help", "帮助", help},
		{"zh greeting", "你好", help},
		{"zh waiting names nothing", "为什么我的作业在等待？", jobs},

		// Korean, German, Spanish: names are found, keywords are few.
		{"ko", "sample-job은 왜 대기 중인가요?", diag("", "sample-job", "")},
		{"ko my jobs", "내 작업 목록", jobs},
		{"de", "Warum wartet mein Job sample-job?", diag("", "sample-job", "")},
		{"es", "¿Por qué está esperando sample-job?", diag("", "sample-job", "", "sample-job", "esperando")},
	})
}

func TestParseCommand(t *testing.T) {
	runParseCases(t, Command, []parseCase{
		{"default verb", "train-7", diag("", "train-7", "")},
		{"why", "why train-7", diag("", "train-7", "")},
		{"why sentence", "why is jobset train-7 waiting -n team-a", diag("JobSet", "train-7", "team-a")},
		{"why kind slash", "why jobset/train-7", diag("JobSet", "train-7", "")},
		{"diagnose", "diagnose team-a/train-7", diag("", "train-7", "team-a")},
		{"notify", "notify jobset/train-7 -n team-a", Request{Intent: IntentNotify, Kind: "JobSet", Name: "train-7", Namespace: "team-a"}},
		{"jobs", "jobs", jobs},
		{"jobs namespace flag", "jobs -n team-a", jobsIn("team-a")},
		{"jobs bare namespace", "jobs team-a", jobsIn("team-a")},
		{"jobs in namespace", "jobs in team-a", jobsIn("team-a")},
		{"list", "list", jobs},
		{"queues", "queues", queues},
		{"queues namespace", "queues -n team-a", Request{Intent: IntentQueues, Namespace: "team-a"}},
		{"queues name", "queues team-a", Request{Intent: IntentQueues, Kind: "LocalQueue", Name: "team-a"}},
		{"queues clusterqueue", "queues clusterqueue/cq-gpu", Request{Intent: IntentQueues, Kind: "ClusterQueue", Name: "cq-gpu"}},
		{"help", "help", help},
		{"empty", "", help},
		{"blank", "   ", help},
		{"uppercase verb", "JOBS", jobs},
		{"free text my jobs", "my jobs", jobs},
		{"free text french", "pourquoi sample-job est en attente ?", diag("", "sample-job", "")},
		{"free text japanese", "sample-job はなぜ待っているの？", diag("", "sample-job", "")},
		{"free text chinese", "为什么sample-job在等待？", diag("", "sample-job", "")},
		{"full-width verb", "ｊｏｂｓ", jobs},
	})
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct {
		name, in string
		wantMsg  []string
	}{
		{"why without a job", "why", []string{"Which job?", "/kueue why train-7", "/kueue jobs"}},
		{"why with no name", "why is my job waiting", []string{"Which job?"}},
		{"jobs with two names", "jobs foo bar", []string{"one name at most"}},
		{"jobs bad namespace", "jobs Team_A", []string{"not a valid namespace"}},
		{"queues bad name", "queues Bad_Queue", []string{"not a valid queue name"}},
		{"notify without a job", "notify", []string{"Which job?", "/kueue notify train-7"}},
		{"queues not a queue kind", "queues jobset/x", []string{"takes a queue name"}},
		{"unknown option", "jobs -o wide", []string{"do not know the option `-o`"}},
		{"unsupported kind", "why daemonset/web", []string{"cannot look at a DaemonSet", "pod/NAME"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Command(tt.in)
			checkParseError(t, tt.in, got, err, tt.wantMsg)
		})
	}
}

func checkParseError(t *testing.T, in string, got Request, err error, wantMsg []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("parse(%q) = %+v, want an error", in, got)
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("parse(%q) error %T, want *Error", in, err)
	}
	msg := pe.UserMessage()
	for _, w := range wantMsg {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not contain %q", msg, w)
		}
	}
	if strings.ContainsAny(msg, "<>") {
		t.Errorf("message %q contains unescaped < or >", msg)
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		// wantMsg are substrings the user-facing message must contain.
		wantMsg []string
	}{
		{"uppercase name", "Train-7", []string{"not a valid Kubernetes name", "Did you mean `train-7`?"}},
		{"uppercase name in a sentence", "why is Train-7 waiting?", []string{"Did you mean `train-7`?"}},
		{"uppercase name in Japanese", "Train-7はなぜ待っているの", []string{"Did you mean `train-7`?"}},
		{"underscore", "train_7", []string{"not a valid Kubernetes name"}},
		{"invalid after job word beats a plain word", "why is job Train_7 waiting for gpu", []string{"`Train_7`", "not a valid"}},
		{"bad namespace", "train-7 -n Team_A", []string{"not a valid namespace"}},
		{"namespace too long", "train-7 -n " + strings.Repeat("a", 64), []string{"not a valid namespace"}},
		{"missing namespace", "train-7 -n", []string{"`-n` needs a namespace"}},
		{"empty namespace flag", "train-7 --namespace=", []string{"`-n` needs a namespace"}},
		{"two namespaces", "train-7 -n a -n b", []string{"two namespaces"}},
		{"two kinds", "jobset/train-7 rayjob train-7", []string{"two kinds"}},
		{"unknown flag", "train-7 -o json", []string{"do not know the option `-o`"}},
		{"too many slashes", "a/b/c/d", []string{"`kind/name` or `namespace/name`"}},
		{"empty part", "jobset/", []string{"`kind/name` or `namespace/name`"}},
		{"queue and kind", "queue team-a jobset/x", []string{"queue or about a job"}},
		{"queue and job name", "queue team-a train-7", []string{"queue or about a job"}},
		{"too long", strings.Repeat("x", MaxQuestionLen+1), []string{"too long"}},
		{"invalid utf8", "train-7 \xff", []string{"could not read"}},
		// Kinds kueuebot does not read are refused with what to ask instead.
		{"daemonset slash", "daemonset/foo", []string{"cannot look at a DaemonSet", "pod/NAME", "jobset", "statefulset", "deployment"}},
		{"ds slash", "why is ds/web waiting", []string{"DaemonSet"}},
		{"replicaset word", "why is replicaset web-7c9 pending", []string{"cannot look at a ReplicaSet", "deployment/NAME"}},
		{"cronjob", "cronjob/nightly", []string{"Job it created"}},
		{"unsupported kind namespace form", "team-a/DaemonSet/web", []string{"DaemonSet"}},
		// Hostile input: markup that survives stripping must come back escaped.
		{"html in name", "train&lt;script&gt;", []string{"`train&lt;script&gt;`", "not a valid"}},
		{"channel ping in name", "x&lt;!channel&gt;", []string{"`x&lt;`"}},
		{"shell injection", "train-7;rm -rf /", []string{"do not know the option `-rf`"}},
		{"command substitution", "$(reboot)", []string{"`$(reboot`", "not a valid"}},
		{"control characters", "train\x07-7", []string{"`train-7`", "not a valid"}},
		{"very long name", strings.Repeat("a", 254), []string{"…`", "not a valid"}},
		{"lookalike letters", "trаin-7", []string{"not a valid Kubernetes name"}},
		{"full-width angle brackets", "train＜channel＞", []string{"`train&lt;channel&gt;`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Text(tt.in)
			checkParseError(t, tt.in, got, err, tt.wantMsg)
		})
	}
}

// TestParseRequestNamesNothing: questions that must not be taken for a job
// name in any language.
func TestParseRequestNamesNothing(t *testing.T) {
	for _, in := range []string{
		"hi", "hello there!", "thanks a lot", "why?", "what's up?", "ok",
		"bonjour", "merci !", "salut, ça va ?",
		"こんにちは", "ありがとう", "なぜ？", "どうして待っているの？",
		"你好", "谢谢！", "为什么？", "在吗？",
		"<@U1> <!here>", "「」（）！？", "\u3000\u3000",
	} {
		t.Run(in, func(t *testing.T) {
			r, err := Text(in)
			if err != nil {
				t.Fatalf("Text(%q): %v", in, err)
			}
			if r.Intent == IntentDiagnose || r.Name != "" || len(r.Candidates) > 0 {
				t.Errorf("Text(%q) = %+v, want no job named", in, r)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"为什么sample-job在等待？", []string{"sample-job", "等待"}},
		{"sample-job はなぜ待っているの？", []string{"sample-job", "待っ"}},
		{"私のジョブ一覧", []string{"ジョブ", "一覧"}},
		{"我的作业和队列", []string{"作业", "队列"}},
		{"qu'est-ce que l'attente", []string{"est-ce", "que", "attente"}},
		{"train-7's", []string{"train-7"}},
		{"ｔｒａｉｎ－７，ｔｅａｍ－ａ／ｘ", []string{"train-7", "team-a/x"}},
		{"「a」『b』【c】《d》〈e〉・f、g。", []string{"a", "b", "c", "d", "e", "f", "g"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got []string
			for _, tk := range tokenize(normalize(tt.in)) {
				got = append(got, tk.text)
			}
			if diff := cmp.Diff(tt.want, got, ignoreLang); diff != "" {
				t.Errorf("tokenize(%q) (-want +got):\n%s", tt.in, diff)
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
	tests := []struct {
		r    Request
		want string
	}{
		{Request{Intent: IntentDiagnose, Kind: "JobSet", Name: "train-7", Namespace: "team-a"}, "jobset/train-7 -n team-a"},
		{Request{Intent: IntentJobs, Namespace: "team-a"}, "jobs -n team-a"},
		{Request{Intent: IntentQueues}, "queues"},
		{Request{Intent: IntentQueues, Kind: "ClusterQueue", Name: "cq"}, "queues clusterqueue/cq"},
		{Request{Intent: IntentHelp}, "help"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.r.String()); diff != "" {
				t.Errorf("String() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKindsFromFetch: every kind diagnose/fetch reads is understood, in
// each of its spellings, and nothing else is.
func TestKindsFromFetch(t *testing.T) {
	for _, k := range kinds.All() {
		for _, w := range append([]string{k.Kind, strings.ToLower(k.Kind)}, k.Names...) {
			r, err := Text(w + "/x-1")
			if err != nil || r.Kind != k.Kind || r.Name != "x-1" {
				t.Errorf("%s/x-1 = %+v, %v; want kind %s", w, r, err, k.Kind)
			}
		}
	}
	for w, kind := range jobKinds {
		if _, ok := kinds.Lookup(w); !ok && !strings.EqualFold(w, kind) {
			t.Errorf("parser kind word %q is not one of diagnose/fetch's", w)
		}
	}
	for w := range unsupportedKinds {
		if _, ok := kinds.Lookup(w); ok {
			t.Errorf("%q is refused as unsupported but diagnose/fetch reads it", w)
		}
	}
}

// TestREADMEKinds keeps the README's KIND line in step with the parser.
func TestREADMEKinds(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	want := "KIND is " + kinds.Sentence() + "."
	if !strings.Contains(readme, want) {
		t.Errorf("README.md does not say %q; update its KIND line", want)
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"why is train-7 waiting?", "为什么sample-job在等待？", "sample-job はなぜ待っているの？", "pourquoi mon job sample-job est en attente ?", "team-a/Job/x", "-n", "a/b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Text(s)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || strings.ContainsAny(pe.UserMessage(), "<>") {
				t.Fatalf("Text(%q): bad error %v", s, err)
			}
			return
		}
		if r.Intent == IntentDiagnose && validateName(r.Name) != nil {
			t.Fatalf("Text(%q) = invalid name %q", s, r.Name)
		}
		if len(r.Candidates) > 0 && r.Candidates[0] != r.Name {
			t.Fatalf("Text(%q): Candidates[0] %q != Name %q", s, r.Candidates[0], r.Name)
		}
		if r.Namespace != "" && validateNamespace(r.Namespace) != nil {
			t.Fatalf("Text(%q) = invalid namespace %q", s, r.Namespace)
		}
	})
}

func TestParseShortcut(t *testing.T) {
	runParseCases(t, Shortcut, []parseCase{
		{"ci notice", "CI: Job train-7 failed to start in team-a, see https://ci.example/123", diag("", "train-7", "team-a")},
		{"colleague", "<@U1> help! is jobset/train-7 stuck again?", diag("JobSet", "train-7", "")},
		{"japanese", "sample-job がずっと保留のままです。", diag("", "sample-job", "")},
		{"long", strings.Repeat("blah ", 700) + " job train-7", diag("", "train-7", "")},
	})
	for _, in := range []string{"thanks!", "my jobs", "queues", "help", strings.Repeat("x ", MaxShortcutLen)} {
		if r, err := Shortcut(in); err == nil {
			t.Errorf("Shortcut(%q) = %+v, want an error", in, r)
		}
	}
}

func BenchmarkParseRequest(b *testing.B) {
	for _, in := range []string{
		"why is my job train-7 waiting?",
		"为什么sample-job在等待？",
		"pourquoi mon job sample-job est en attente dans team-a ?",
		strings.Repeat("why is it ", 45) + "train-7",
	} {
		b.Run(fmt.Sprintf("%d runes", utf8.RuneCountInString(in)), func(b *testing.B) {
			for b.Loop() {
				if _, err := Text(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
