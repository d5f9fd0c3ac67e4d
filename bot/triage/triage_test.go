package triage

import (
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/config"
)

const supportChannel = "C0SUPPORT"

// TestTriageDetect: the default patterns in English, French, Japanese and
// Chinese, and unmistakable job references, mark a message as a stuck-job
// question; everyday chatter does not.
func TestTriageDetect(t *testing.T) {
	tr := New([]string{supportChannel}, config.DefaultTriagePatterns(), Summary, time.Minute, "")
	for _, text := range []string{
		"my job is stuck",
		"train-7 has been PENDING for an hour",
		"why is it still waiting?",
		"the training is not starting",
		"mon job est en attente depuis ce matin",
		"Ma tâche est BLOQUÉE",
		"ジョブがずっと待っています",                       // 待って
		"sample-jobが動かない",                     // 動かない
		"我的作业一直在等待",                           // 等待
		"sample-job 卡住了",                      // 卡住
		"can someone look at jobset/train-7?", // kind/name
		"team-a/train-7 please",               // namespace/name
		"what about job train-7",              // job word and a shaped name
		"rayjob my-ray-run is weird",          // kind word and a name
		"ｓｔｕｃｋ again",                         // full-width folded
	} {
		if !tr.Detect(text) {
			t.Errorf("Detect(%q) = false, want a stuck-job question", text)
		}
	}
	for _, text := range []string{
		"the queue for lunch is long",
		"spending is over budget",
		"the job fair is on Friday",
		"lunch/dinner options?",
		"see you 12/25",
		"bonjour à tous",
		"今日はいい天気ですね",
		"大家好",
		"https://example.com/stuck/pending is a link",
		"see <https://wiki.example.com/pending-items|the wiki>", // the label counts, not the address
		"<@U0ALICE> <#C0SUPPORT|waiting-room>",                  // mentions and channel names are not words
		"",
	} {
		if tr.Detect(text) {
			t.Errorf("Detect(%q) = true, want no job question", text)
		}
	}
	custom := New([]string{supportChannel}, []string{"Ça coince"}, Summary, 0, "")
	if !custom.Detect("ça coince encore") || custom.Detect("my job is stuck") {
		t.Error("configured patterns replace the defaults")
	}
}
