package bot

import (
	"strings"
)

// want is what a question asks the handlers to do. It is the one place
// that reads the parser's Request for the handlers, so the parser can
// grow (intents, slash verbs, candidates) without the handlers changing.
type want int

const (
	wantHelp     want = iota // show what to type
	wantDiagnose             // explain one job
	wantJobs                 // list the caller's jobs that are not running
	wantQueues               // list the caller's LocalQueues
	wantQueue                // describe one queue (not supported yet)
)

// query is a parsed question.
type query struct {
	want want
	req  Request
}

// listWords are the words of "list my jobs", "what are my jobs?", "jobs".
var (
	jobListWords   = map[string]bool{"jobs": true, "list": true, "workloads": true, "mine": true, "all": true}
	queueListWords = map[string]bool{"queues": true, "localqueues": true, "list": true, "mine": true, "all": true}
)

// parseQuery parses a question from any entry point. Errors are
// *ParseError values whose message says what to type.
func parseQuery(text string) (query, error) {
	if w, ok := listQuery(text); ok {
		return query{want: w}, nil
	}
	req, err := ParseRequest(text)
	if err != nil {
		return query{}, err
	}
	switch req.Intent {
	case IntentHelp:
		return query{want: wantHelp, req: req}, nil
	case IntentQueue:
		return query{want: wantQueue, req: req}, nil
	default:
		return query{want: wantDiagnose, req: req}, nil
	}
}

// listQuery recognises the list questions ("my jobs", "list my jobs",
// "/kueue jobs", "queues") that name no job: every word is a list word or
// filler, and one of them says what to list.
func listQuery(text string) (want, bool) {
	toks := tokenize(StripSlackMarkup(text))
	if len(toks) > 0 && (toks[0] == "/kueue" || toks[0] == "/kueuebot") {
		toks = toks[1:]
	}
	jobs, queues := true, true
	var sawJobs, sawQueues bool
	for _, t := range toks {
		low := strings.ToLower(t)
		if isFiller(low) {
			continue
		}
		jobs = jobs && jobListWords[low]
		queues = queues && queueListWords[low]
		sawJobs = sawJobs || low == "jobs" || low == "workloads"
		sawQueues = sawQueues || low == "queues" || low == "localqueues"
	}
	switch {
	case jobs && sawJobs:
		return wantJobs, true
	case queues && sawQueues:
		return wantQueues, true
	}
	return 0, false
}
