package bot

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
)

// slackRef matches Slack's angle-bracket markup: <@U123>, <@U123|name>,
// <#C123|general>, <!channel>, <!subteam^S1|@team>, <mailto:a@b|a@b>,
// <https://x|label>, <https://x>.
var slackRef = regexp.MustCompile(`<([^<>]*)>`)

// StripSlackMarkup removes what Slack adds around a question: user, channel
// and group mentions and special commands disappear; links become their
// label (or their address); backticks go; the HTML entities Slack encodes
// (&amp; &lt; &gt;) are decoded last, so that a decoded "<" can never form
// new markup.
func StripSlackMarkup(s string) string {
	s = slackRef.ReplaceAllStringFunc(s, func(m string) string {
		inner := m[1 : len(m)-1]
		if inner == "" {
			return " "
		}
		switch inner[0] {
		case '@', '#', '!':
			return " "
		}
		if _, label, ok := strings.Cut(inner, "|"); ok {
			return " " + label + " "
		}
		return " " + inner + " "
	})
	s = strings.ReplaceAll(s, "`", " ")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// tokenize splits on white space, drops invisible format characters and
// trims punctuation that sentences and Slack formatting put around words.
func tokenize(s string) []string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	var out []string
	for _, f := range strings.FieldsFunc(s, unicode.IsSpace) {
		f = strings.Trim(f, `?!.,;:"'()[]{}*_~“”‘’`)
		f = strings.TrimLeft(f, "@") // "@kueuebot" typed as text
		f = strings.TrimSuffix(f, "'s")
		f = strings.TrimSuffix(f, "’s")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// jobKinds maps the words users type for job kinds (singular, lower case)
// to Kubernetes kinds: the names of fetch's registry (the one list of the
// kinds kueuebot diagnoses) and a few chat-only aliases. "job" itself is
// generic in a sentence ("my job train-7") and only means batch/v1 Job in
// the kind/name form.
var jobKinds = func() map[string]string {
	m := map[string]string{
		"batchjob": "Job",
		"js":       "JobSet",
		// Kinds Kueue integrates with that kueuebot recognises in a sentence
		// but does not diagnose (fetch has no entry for them).
		"rayservice":       "RayService",
		"statefulset":      "StatefulSet",
		"sts":              "StatefulSet",
		"deployment":       "Deployment",
		"sparkapplication": "SparkApplication",
	}
	for _, k := range fetch.Kinds() {
		for _, n := range k.Names {
			if !genericJobWords[n] {
				m[n] = k.Kind
			}
		}
	}
	return m
}()

// queueKinds maps queue words to queue kinds.
var queueKinds = map[string]string{
	"queue":        "LocalQueue",
	"localqueue":   "LocalQueue",
	"lq":           "LocalQueue",
	"clusterqueue": "ClusterQueue",
	"cq":           "ClusterQueue",
}

// genericJobWords name a job without saying which kind.
var genericJobWords = map[string]bool{"job": true, "jobs": true}

func init() {
	// Accept plurals of every kind word: "jobsets/foo", "queues team-a".
	for _, m := range []map[string]string{jobKinds, queueKinds} {
		for k, v := range m {
			if len(k) > 3 {
				m[k+"s"] = v
			}
		}
	}
}

// kindOf resolves the kind part of "kind/name": a kind word, possibly
// plural and group-qualified ("jobs.batch", "jobsets.jobset.x-k8s.io").
func kindOf(s string) string {
	s = strings.ToLower(s)
	s, _, _ = strings.Cut(s, ".")
	if genericJobWords[s] {
		return "Job"
	}
	if k := jobKinds[s]; k != "" {
		return k
	}
	return queueKinds[s]
}

var helpWords = map[string]bool{
	"help": true, "-h": true, "--help": true, "usage": true, "commands": true,
	"h": true,
}

func isHelpWord(s string) bool { return helpWords[s] }

// fillerWords are the words of a question that never name anything. A job
// called like one of them is asked about as "job/NAME".
var fillerWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about admit admitted again ages am an and any are aren't aren't at
		be been being bot can cannot can't check cluster come could days did
		didn't diagnose do does doesn't doesnt don't explain for forever get
		getting going has hasn't hasnt have hello her hey hi his hours how i
		i'm idea im is isn't isnt it it's its k8s know kubernetes kueue
		kueuebot long look me minutes my not now of on or our please pls
		pending place position queued run running schedule scheduled scheduling show since
		so start started starting status still stuck tell thank thanks that
		the their there this to up us wait waiting waits was wasn't what
		what's whats when where why will with won't wont would yet you`) {
		m[w] = true
	}
	return m
}()

func isFiller(s string) bool {
	return fillerWords[strings.ReplaceAll(s, "’", "'")]
}
