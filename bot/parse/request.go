package parse

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/kinds"
)

// Intent is what the user wants from the bot.
type Intent string

const (
	// IntentDiagnose: explain why one job (or Workload) waits. The default
	// whenever a job is named.
	IntentDiagnose Intent = "Diagnose"
	// IntentJobs: list the caller's jobs that are not running. Asked with
	// "my jobs", "list my jobs", "/kueue jobs", or any question about jobs
	// that names none ("why is my job waiting?").
	IntentJobs Intent = "Jobs"
	// IntentQueues: the caller's LocalQueues with pending, admitted and
	// usage against quota. "my queues", "/kueue queues"; "queue team-a"
	// names one (Request.Name).
	IntentQueues Intent = "Queues"
	// IntentHelp: show what to type.
	IntentHelp Intent = "Help"
	// IntentNotify: tell the asker, in a DM, when one job is admitted,
	// runs, fails, is evicted or finishes (`/kueue notify train-7`). Kind,
	// Name, Namespace and Candidates are as for IntentDiagnose.
	IntentNotify Intent = "Notify"
	// IntentLanguage: remember the language the asker wants answers in
	// ("answer in English", "réponds en français", "日本語で答えて",
	// "用中文回答", `/kueue language fr`). Request.Lang is that language;
	// LangKnown false means "automatic" (`/kueue language auto`: forget it).
	IntentLanguage Intent = "Language"
)

// Request is a parsed question.
type Request struct {
	Intent Intent `json:"intent"`
	// Kind is the Kubernetes kind the user named: a job kind ("Job",
	// "JobSet", "RayJob", "Workload", ... as diagnose/fetch spells them)
	// for IntentDiagnose, "LocalQueue" or "ClusterQueue" for IntentQueues
	// when a queue is named. Empty means the user did not say (every
	// supported job kind is tried).
	Kind string `json:"kind,omitempty"`
	// Name is a valid DNS-1123 subdomain: for IntentDiagnose the job (the
	// best guess when Candidates has several), for IntentQueues the queue
	// asked about (empty: all of the caller's queues). Empty otherwise.
	Name string `json:"name,omitempty"`
	// Candidates are, when the question could name several jobs, every
	// valid name in it, best guess first (Candidates[0] == Name): a name
	// written as kind/name or namespace/name, then one following a job
	// word ("job train-7", "作业sample-job"), then names with a digit, '-'
	// or '.', then plain words, each in the order typed. Nil when the name
	// is certain. Explain resolves them among the caller's jobs.
	Candidates []string `json:"candidates,omitempty"`
	// Namespace is a valid DNS-1123 label, or empty when the user did not
	// say (then the caller's default namespaces apply).
	Namespace string `json:"namespace,omitempty"`
	// Lang is the language the question was written in, when LangKnown
	// (Japanese for kana, Chinese for Han without kana, French or English
	// by their words); a bare job name or a command tells none. For
	// IntentLanguage it is the language asked for. Neither is part of the
	// request's JSON.
	Lang      i18n.Lang `json:"-"`
	LangKnown bool      `json:"-"`
	// List is, for IntentDiagnose, the list the question's words also ask
	// for: IntentQueues after a queue word ("queues on gpu-west"),
	// IntentJobs after a job or list word ("my jobs on gpu-west"), empty
	// otherwise. The parser knows no clusters: when the only name is a
	// configured cluster's, the asker lists there instead.
	List Intent `json:"-"`
	// Word is, for IntentJobs, the one bare word of `/kueue jobs WORD`
	// (not `-n WORD`), also set as Namespace: the asker takes it for a
	// configured cluster's name when it is one.
	Word string `json:"-"`
}

// withLang sets the language the question was written in.
func withLang(r Request, toks []token, text string) Request {
	if r.Intent != IntentLanguage {
		r.Lang, r.LangKnown = detectLang(toks, text)
	}
	return r
}

// String renders the request the way a user would type it, e.g.
// "jobset/train-7 -n team-a", "jobs -n team-a", "queues team-a", "help".
func (r Request) String() string {
	var b strings.Builder
	switch r.Intent {
	case IntentHelp:
		return "help"
	case IntentLanguage:
		if !r.LangKnown {
			return "language auto"
		}
		return "language " + r.Lang.String()
	case IntentJobs:
		b.WriteString("jobs")
	case IntentNotify:
		b.WriteString("notify ")
		b.WriteString(Request{Intent: IntentDiagnose, Kind: r.Kind, Name: r.Name, Namespace: r.Namespace}.String())
		return b.String()
	case IntentQueues:
		b.WriteString("queues")
		if r.Name != "" {
			b.WriteString(" ")
			if r.Kind == "ClusterQueue" {
				b.WriteString("clusterqueue/")
			}
			b.WriteString(r.Name)
		}
	default:
		if r.Kind != "" {
			b.WriteString(strings.ToLower(r.Kind))
			b.WriteString("/")
		}
		b.WriteString(r.Name)
	}
	if r.Namespace != "" {
		b.WriteString(" -n ")
		b.WriteString(r.Namespace)
	}
	return b.String()
}

// Error is a question the bot could not understand. Its message is
// meant for the user: it says what was wrong and what to type instead.
type Error struct {
	msg i18n.Message
}

// Error implements error (English).
func (e *Error) Error() string { return e.msg.String() }

// UserMessage is the text to show the user (mrkdwn, already escaped), in
// English.
func (e *Error) UserMessage() string { return e.msg.String() }

// UserMessageIn is UserMessage in language l.
func (e *Error) UserMessageIn(l i18n.Lang) string { return e.msg.In(l) }

// Message is the error as a catalog message.
func (e *Error) Message() i18n.Message { return e.msg }

func parseError(id i18n.ID, args ...i18n.Arg) *Error { return &Error{msg: i18n.M(id, args...)} }

func parseErrorMsg(m i18n.Message) *Error { return &Error{msg: m} }

// example is Example as a message, in each language's own words.
func example() i18n.Message { return i18n.M("parse.example") }

// ExampleIn is Example in language l.
func ExampleIn(l i18n.Lang) string { return example().In(l) }

// MaxQuestionLen caps the length of a question, in characters.
const MaxQuestionLen = 500

// Example is the question every error message suggests (mrkdwn).
const Example = "`why is train-7 waiting?` or `diagnose jobset/train-7 -n team-a`"

// Text turns free text from a mention, a DM or a message shortcut
// into a Request, whatever language surrounds the job's name. It accepts
// sentences ("why is my job train-7 waiting?", "pourquoi mon job
// sample-job est en attente ?", "sample-job はなぜ待っているの？",
// "为什么sample-job在等待？"), kind/name forms ("jobset/foo"),
// namespace/name forms ("team-a/foo"), a kind word before the name ("rayjob
// my-ray"), and namespaces as flags ("-n team-a", "--namespace=team-a") or
// words ("in ns team-b", "in team-b", "dans team-b", "命名空间 team-b").
// A question that names no job asks for the caller's jobs ("my jobs",
// "私のジョブ", "我的作业"), queues ("my queues", "キュー", "队列") or help
// ("help", "aide", "ヘルプ", "帮助"). Text starting with "/kueue" is read as
// the slash command (Command). Slack markup (mentions, links,
// backticks) is stripped and full-width characters folded first. Errors
// are *Error values whose message says what to type.
func Text(text string) (Request, error) {
	toks, norm, err := words0(text)
	if err != nil {
		return Request{}, err
	}
	if len(toks) > 0 && (toks[0].low == "/kueue" || toks[0].low == "/kueuebot") {
		return command(toks[1:], norm)
	}
	if r, ok := languageRequest(toks, norm); ok {
		return r, nil
	}
	p := parser{toks: toks}
	r, err := p.parse()
	return withLang(r, toks, norm), err
}

// Command parses the text of a /kueue slash command (what follows the
// command): "why JOB" (why is the default verb: "/kueue train-7" asks why),
// "jobs [-n NS]", "queues [QUEUE] [-n NS]" and "help"; empty text is help.
// Anything else is read as a question (Text), so "/kueue pourquoi
// sample-job ?" works too.
func Command(text string) (Request, error) {
	toks, norm, err := words0(text)
	if err != nil {
		return Request{}, err
	}
	return command(toks, norm)
}

// command parses the words of a slash command and the language they are
// written in.
func command(toks []token, norm string) (Request, error) {
	if r, ok := languageRequest(toks, norm); ok {
		return r, nil
	}
	r, err := parseCommand(toks)
	if len(toks) > 0 && commandVerbs[toks[0].low] {
		// The verb is the command's, not the asker's language.
		toks = toks[1:]
	}
	return withLang(r, toks, norm), err
}

// commandVerbs are the verbs of the slash command (parseCommand).
var commandVerbs = setOf(`why diagnose explain notify watch jobs list ls queues queue help`)

// MaxShortcutLen caps the message a shortcut reads, in characters.
const MaxShortcutLen = 4000

// Shortcut finds the job a message names, for the message shortcut
// "Why is this job waiting?": any message, in any language, up to
// MaxShortcutLen characters (a CI notice, a colleague's question). The
// result is always IntentDiagnose; a message that names no job is a
// *Error. Since the message was not written for the bot, a plain
// word is not taken for a job's name ("lunch at noon?"): the name must be
// shaped like one (a digit, '-' or '.'), follow a job or kind word, or be
// written kind/name or namespace/name.
func Shortcut(text string) (Request, error) {
	if utf8.RuneCountInString(text) > MaxShortcutLen {
		return Request{}, parseError("parse.shortcut.tooLong", i18n.Verbatim(strconv.Itoa(MaxShortcutLen)), example())
	}
	if !utf8.ValidString(text) {
		return Request{}, parseError("parse.shortcut.unreadable", example())
	}
	norm := normalize(StripSlackMarkup(text))
	toks := tokenize(norm)
	p := parser{toks: toks}
	r, err := p.parse()
	if err != nil {
		return Request{}, err
	}
	if r.Intent != IntentDiagnose || !p.namesJob() {
		return Request{}, parseError("parse.shortcut.noJob", example())
	}
	return withLang(r, toks, norm), nil
}

// words0 checks and tokenizes a question.
func words0(text string) ([]token, string, error) {
	if utf8.RuneCountInString(text) > MaxQuestionLen {
		return nil, "", parseError("parse.question.tooLong", i18n.Verbatim(strconv.Itoa(MaxQuestionLen)), example())
	}
	if !utf8.ValidString(text) {
		return nil, "", parseError("parse.question.unreadable", example())
	}
	norm := normalize(StripSlackMarkup(text))
	return tokenize(norm), norm, nil
}

func parseCommand(toks []token) (Request, error) {
	if len(toks) == 0 {
		return Request{Intent: IntentHelp}, nil
	}
	switch toks[0].low {
	case "why", "diagnose", "explain":
		p := parser{toks: toks[1:]}
		r, err := p.parse()
		if err != nil {
			return Request{}, err
		}
		if r.Intent != IntentDiagnose {
			return Request{}, parseError("parse.why.noJob")
		}
		return r, nil
	case "notify", "watch":
		p := parser{toks: toks[1:]}
		r, err := p.parse()
		if err != nil {
			return Request{}, err
		}
		if r.Intent != IntentDiagnose {
			return Request{}, parseError("parse.notify.noJob")
		}
		r.Intent = IntentNotify
		return r, nil
	case "jobs", "list", "ls":
		p := parser{toks: toks[1:]}
		return p.parseArgs(IntentJobs)
	case "queues", "queue":
		p := parser{toks: toks[1:]}
		return p.parseArgs(IntentQueues)
	case "help":
		return Request{Intent: IntentHelp}, nil
	}
	p := parser{toks: toks}
	return p.parse()
}

// Candidate ranks: how surely a word is the job's name.
const (
	// tierWord: a plain word.
	tierWord = iota + 1
	// tierShaped: it has a digit, '-' or '.', as Kubernetes names often do.
	tierShaped
	// tierAfterJob: it follows a job or kind word ("job train-7",
	// "jobset train-7", "作业sample-job").
	tierAfterJob
	// tierExplicit: written as kind/name or namespace/name.
	tierExplicit
)

// candidate is a word that may be the job's name.
type candidate struct {
	name  string
	tier  int
	pos   int
	valid bool
}

type parser struct {
	toks []token
	i    int

	req     Request
	nsSet   bool
	kindSet bool
	cands   []candidate

	// unsupported is a kind kueuebot does not read that the question
	// named a job of ("statefulset web").
	unsupported string
	queueWord   bool
	queueName   string
	queueKind   string
	sawJob      bool
	sawList     bool
	sawHelp     bool
	sawTopic    bool
}

// peekName returns the next token when it may be a name (not a keyword,
// not a flag, not inside CJK text).
func (p *parser) peekName() (token, bool) {
	if p.i >= len(p.toks) {
		return token{}, false
	}
	t := p.toks[p.i]
	if t.cjk || strings.HasPrefix(t.text, "-") || classify(t) != className {
		return token{}, false
	}
	return t, true
}

func (p *parser) setNamespace(ns string) error {
	if ns == "" {
		return parseError("parse.n.empty")
	}
	if err := validateNamespace(ns); err != nil {
		return err
	}
	if p.nsSet && p.req.Namespace != ns {
		return parseError("parse.twoNamespaces", i18n.Verbatim(quote(p.req.Namespace)), i18n.Verbatim(quote(ns)))
	}
	p.req.Namespace, p.nsSet = ns, true
	return nil
}

func (p *parser) setKind(k string) error {
	if p.kindSet && p.req.Kind != k {
		return parseError("parse.twoKinds", i18n.Verbatim(quote(p.req.Kind)), i18n.Verbatim(quote(k)))
	}
	p.req.Kind, p.kindSet = k, true
	return nil
}

func (p *parser) addCand(name string, tier, pos int) {
	for i, c := range p.cands {
		if c.name == name {
			p.cands[i].tier = max(c.tier, tier)
			return
		}
	}
	p.cands = append(p.cands, candidate{name: name, tier: tier, pos: pos, valid: len(validation.IsDNS1123Subdomain(name)) == 0})
}

// option handles the tokens that set the namespace: -n NS, --namespace=NS,
// -nNS, "namespace NS", "ns NS", "in NS", "in ns NS", "命名空间 NS". It
// reports whether tk was one of them.
func (p *parser) option(tk token) (bool, error) {
	low := tk.low
	switch {
	case tk.cjk && classify(tk) != classNamespace:
		return false, nil
	case low == "-n" || low == "--namespace" || low == "-namespace":
		var ns string
		if p.i < len(p.toks) {
			ns = p.toks[p.i].text
			p.i++
		}
		return true, p.setNamespace(ns)
	case strings.HasPrefix(low, "--namespace="), strings.HasPrefix(low, "-n="):
		return true, p.setNamespace(tk.text[strings.IndexByte(tk.text, '=')+1:])
	case strings.HasPrefix(tk.text, "-n") && len(tk.text) > 2 && !strings.HasPrefix(tk.text, "--"):
		return true, p.setNamespace(tk.text[2:])
	case strings.HasPrefix(tk.text, "-"):
		return true, parseError("parse.option", i18n.Verbatim(quote(tk.text)))
	}
	switch classify(tk) {
	case classNamespace:
		// "namespace team-a", "in ns team-a", "命名空间 team-a"
		if nt, ok := p.peekName(); ok {
			p.i++
			return true, p.setNamespace(nt.text)
		}
		return true, nil
	case classIn:
		return true, p.parseIn()
	}
	return false, nil
}

// parseIn handles "in ns X", "in namespace X", "in X" and "in the queue".
func (p *parser) parseIn() error {
	if p.i >= len(p.toks) {
		return nil
	}
	nt := p.toks[p.i]
	if classify(nt) == classNamespace && !nt.cjk {
		p.i++
		var ns string
		if p.i < len(p.toks) {
			ns = p.toks[p.i].text
			p.i++
		}
		return p.setNamespace(ns)
	}
	if t, ok := p.peekName(); ok && !strings.Contains(t.text, "/") {
		p.i++
		return p.setNamespace(t.text)
	}
	return nil
}

func (p *parser) parse() (Request, error) {
	for p.i < len(p.toks) {
		pos := p.i
		tk := p.toks[p.i]
		p.i++
		c := classify(tk)
		if c == classHelp {
			// "help" alone is help; "can you help with train-7?" asks about
			// train-7.
			p.sawHelp = true
			continue
		}
		if ok, err := p.option(tk); ok || err != nil {
			if err != nil {
				return Request{}, err
			}
			continue
		}
		switch c {
		case classQueue:
			p.queueWord = true
			// A queue word is a command when nothing else was named yet
			// ("queue team-a", "what about queue team-a"), a noun otherwise
			// ("train-7 is stuck in the queue").
			if nt, ok := p.peekName(); ok && len(p.cands) == 0 && !p.kindSet && p.queueName == "" {
				p.i++
				p.queueName = nt.text
				p.queueKind = queueKinds[tk.low]
				if tk.cjk {
					p.queueKind = "LocalQueue"
				}
			}
		case classKind:
			p.sawJob = true
			nt, ok := p.peekName()
			// Short names ("po", "wl", "aw") are kinds in a sentence only
			// before a name-shaped word: "aw man, train-7 is stuck".
			if ok && (len(tk.low) > 3 || shapeTier(nt.text) == tierShaped) {
				p.i++
				if err := p.setKind(jobKinds[tk.low]); err != nil {
					return Request{}, err
				}
				if err := p.addRef(nt, tierAfterJob, pos+1); err != nil {
					return Request{}, err
				}
			}
		case classJob:
			p.sawJob = true
			if nt, ok := p.peekName(); ok {
				p.i++
				if err := p.addRef(nt, tierAfterJob, pos+1); err != nil {
					return Request{}, err
				}
			}
		case classUnsupported:
			if _, ok := p.peekName(); ok {
				p.i++
				p.unsupported = unsupportedKinds[tk.low]
			}
		case classList:
			p.sawList = true
		case classTopic:
			p.sawTopic = true
		case classFiller, classGreeting:
		default:
			if err := p.addRef(tk, shapeTier(tk.text), pos); err != nil {
				return Request{}, err
			}
		}
	}
	return p.finish()
}

// shapeTier ranks a plain word: tierShaped when it has a digit, '-' or '.'.
func shapeTier(s string) int {
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsDigit(r) || r == '-' || r == '.' }) {
		return tierShaped
	}
	return tierWord
}

// addRef handles a name, "kind/name", "namespace/name", "kind/namespace/name"
// and "namespace/Kind/name" (the form kueuebot's buttons carry).
func (p *parser) addRef(tk token, tier, pos int) error {
	parts := strings.Split(tk.text, "/")
	if slices.Contains(parts, "") && len(parts) > 1 {
		return parseError("parse.notUnderstood", i18n.Verbatim(quote(tk.text)))
	}
	switch len(parts) {
	case 1:
		p.addCand(tk.text, tier, pos)
		return nil
	case 2:
		kind, queue, unsupported := kindOf(parts[0])
		switch {
		case unsupported != "":
			return unsupportedError(unsupported)
		case queue:
			p.queueWord, p.queueName, p.queueKind = true, parts[1], kind
			return nil
		case kind != "":
			if err := p.setKind(kind); err != nil {
				return err
			}
		default:
			if err := p.setNamespace(parts[0]); err != nil {
				return err
			}
		}
		p.addCand(parts[1], tierExplicit, pos)
		return nil
	case 3:
		kind, queue, unsupported := kindOf(parts[0])
		ns := parts[1]
		if kind == "" && !queue && unsupported == "" {
			// namespace/Kind/name
			kind, queue, unsupported = kindOf(parts[1])
			ns = parts[0]
		}
		switch {
		case unsupported != "":
			return unsupportedError(unsupported)
		case kind == "":
			break
		case queue:
			p.queueWord, p.queueName, p.queueKind = true, parts[2], kind
			return p.setNamespace(ns)
		default:
			if err := p.setKind(kind); err != nil {
				return err
			}
			if err := p.setNamespace(ns); err != nil {
				return err
			}
			p.addCand(parts[2], tierExplicit, pos)
			return nil
		}
	}
	return parseError("parse.notUnderstood", i18n.Verbatim(quote(tk.text)))
}

// unsupportedError answers a question about a kind kueuebot does not read.
func unsupportedError(kind string) *Error {
	hint := i18n.M("parse.unsupported.pods", i18n.Verbatim(kind))
	switch kind {
	case "ReplicaSet":
		hint = i18n.M("parse.unsupported.replicaSet")
	case "CronJob":
		hint = i18n.M("parse.unsupported.cronJob")
	case "SparkApplication":
		hint = i18n.M("parse.unsupported.spark")
	}
	return parseErrorMsg(i18n.Join(i18n.M("parse.unsupported", i18n.Verbatim(kind)), hint, i18n.M("parse.unsupported.kinds", i18n.Verbatim(kinds.Words()))))
}

// parseArgs reads the arguments of "/kueue jobs" and "/kueue queues": the
// namespace options, and one bare word: the namespace for jobs, the queue
// for queues.
func (p *parser) parseArgs(intent Intent) (Request, error) {
	var bare []string
	for p.i < len(p.toks) {
		tk := p.toks[p.i]
		p.i++
		if ok, err := p.option(tk); ok || err != nil {
			if err != nil {
				return Request{}, err
			}
			continue
		}
		// Filler and keywords ("/kueue jobs for me", "/kueue queues in
		// team-a") are skipped; names are kept.
		if classify(tk) == className && !tk.cjk {
			bare = append(bare, tk.text)
		}
	}
	verb := "/kueue " + strings.ToLower(string(intent))
	if len(bare) > 1 {
		return Request{}, parseError("parse.oneName", i18n.Verbatim(verb))
	}
	p.req.Intent = intent
	if len(bare) == 1 {
		if intent == IntentJobs {
			if err := p.setNamespace(bare[0]); err != nil {
				return Request{}, err
			}
			p.req.Word = bare[0]
		} else {
			kind, name := "LocalQueue", bare[0]
			if k, n, ok := strings.Cut(bare[0], "/"); ok {
				kq, queue, _ := kindOf(k)
				if !queue {
					return Request{}, parseError("parse.queueName", i18n.Verbatim(verb))
				}
				kind, name = kq, n
			}
			if err := validateQueueName(name); err != nil {
				return Request{}, err
			}
			p.req.Kind, p.req.Name = kind, name
		}
	}
	return p.req, nil
}

func (p *parser) finish() (Request, error) {
	if p.queueName != "" {
		for _, c := range p.cands {
			if c.tier >= tierShaped {
				return Request{}, parseError("parse.queueOrJob", example())
			}
		}
		if p.kindSet {
			return Request{}, parseError("parse.queueOrJob", example())
		}
		if err := validateQueueName(p.queueName); err != nil {
			return Request{}, err
		}
		return Request{Intent: IntentQueues, Kind: p.queueKind, Name: p.queueName, Namespace: p.req.Namespace}, nil
	}
	if len(p.cands) == 0 {
		switch {
		case p.unsupported != "":
			return Request{}, unsupportedError(p.unsupported)
		case p.sawHelp:
			return Request{Intent: IntentHelp}, nil
		case p.queueWord && !p.sawJob:
			return Request{Intent: IntentQueues, Namespace: p.req.Namespace}, nil
		case p.sawJob || p.sawList || p.sawTopic || p.nsSet || p.kindSet:
			return Request{Intent: IntentJobs, Namespace: p.req.Namespace}, nil
		}
		// Only greetings and filler words: "hi", "thanks!", "こんにちは".
		return Request{Intent: IntentHelp}, nil
	}
	ranked := slices.Clone(p.cands)
	slices.SortStableFunc(ranked, func(a, b candidate) int { return cmp.Compare(b.tier, a.tier) })
	var valid []candidate
	var badBest *candidate
	for i, c := range ranked {
		if c.valid {
			valid = append(valid, c)
		} else if badBest == nil {
			badBest = &ranked[i]
		}
	}
	// An invalid word that looks more like the name than every valid one
	// is a typo to point out ("Train-7"), not a word to skip.
	if len(valid) == 0 || badBest != nil && badBest.tier > valid[0].tier {
		return Request{}, validateName(badBest.name)
	}
	p.req.Intent = IntentDiagnose
	p.req.Name = valid[0].name
	switch {
	case p.queueWord && !p.sawJob:
		p.req.List = IntentQueues
	case p.sawJob || p.sawList:
		p.req.List = IntentJobs
	}
	certain := valid[0].tier >= tierAfterJob && (len(valid) == 1 || valid[1].tier < valid[0].tier)
	if !certain && len(valid) > 1 {
		for _, c := range valid {
			p.req.Candidates = append(p.req.Candidates, c.name)
		}
	}
	return p.req, nil
}

// namesJob reports whether a valid candidate is more than a plain word.
func (p *parser) namesJob() bool {
	for _, c := range p.cands {
		if c.valid && c.tier >= tierShaped {
			return true
		}
	}
	return false
}

func validateName(n string) error {
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		return parseErrorMsg(i18n.Join(i18n.M("parse.invalid.name", i18n.Verbatim(quote(n))), didYouMean(n, validation.IsDNS1123Subdomain), i18n.M("parse.try", example())))
	}
	return nil
}

func validateQueueName(n string) error {
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		return parseErrorMsg(i18n.Join(i18n.M("parse.invalid.queue", i18n.Verbatim(quote(n))), didYouMean(n, validation.IsDNS1123Subdomain), i18n.M("parse.eg", i18n.Verbatim("`queue team-a`"))))
	}
	return nil
}

func validateNamespace(ns string) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return parseErrorMsg(i18n.Join(i18n.M("parse.invalid.namespace", i18n.Verbatim(quote(ns))), didYouMean(ns, validation.IsDNS1123Label), i18n.M("parse.eg", i18n.Verbatim("`train-7 -n team-a`"))))
	}
	return nil
}

// didYouMean suggests the lower-case spelling when that one is valid.
func didYouMean(s string, valid func(string) []string) i18n.Message {
	low := strings.ToLower(s)
	if low != s && len(valid(low)) == 0 {
		return i18n.M("parse.didYouMean", i18n.Verbatim(quote(low)))
	}
	return i18n.Message{}
}

// quote shows user input back in inline code, shortened and with characters
// that would break the code span or Slack's markup replaced. The result is
// safe to embed in mrkdwn.
func quote(s string) string {
	const maxRunes = 40
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes]) + "…"
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return '\''
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return "`" + r.Replace(s) + "`"
}
