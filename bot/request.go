package bot

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/explain"
)

// Intent is what the user wants from the bot.
type Intent string

const (
	// IntentDiagnose: explain why one job (or Workload) waits.
	IntentDiagnose Intent = "Diagnose"
	// IntentHelp: show what to type.
	IntentHelp Intent = "Help"
	// IntentQueue: describe a LocalQueue or ClusterQueue (Kind says which).
	IntentQueue Intent = "Queue"
)

// Request is a parsed question.
type Request struct {
	Intent Intent `json:"intent"`
	// Kind is a Kubernetes kind ("Job", "JobSet", "RayJob", "Workload",
	// "LocalQueue", "ClusterQueue", ...). Empty means the user did not say;
	// the Diagnoser decides (usually: look the name up across job kinds).
	Kind string `json:"kind,omitempty"`
	// Name is a valid DNS-1123 subdomain; empty only for IntentHelp.
	Name string `json:"name,omitempty"`
	// Namespace is a valid DNS-1123 label, or empty when the user did not
	// say (then the caller's default namespaces apply).
	Namespace string `json:"namespace,omitempty"`
}

// Target returns the diagnose.Target the request names.
func (r Request) Target() diagnose.Target {
	return diagnose.Target{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// Question returns the explain.Question the request asks.
func (r Request) Question() explain.Question {
	return explain.Question{Kind: r.Kind, Name: r.Name, Namespace: r.Namespace}
}

// String renders the request the way a user would type it with the CLI,
// e.g. "jobset/train-7 -n team-a".
func (r Request) String() string {
	var b strings.Builder
	if r.Kind != "" {
		b.WriteString(strings.ToLower(r.Kind))
		b.WriteString("/")
	}
	b.WriteString(r.Name)
	if r.Namespace != "" {
		b.WriteString(" -n ")
		b.WriteString(r.Namespace)
	}
	return b.String()
}

// ParseError is a question the bot could not understand. Its message is
// meant for the user: it says what was wrong and what to type instead.
type ParseError struct {
	msg string
}

// Error implements error.
func (e *ParseError) Error() string { return e.msg }

// UserMessage is the text to show the user.
func (e *ParseError) UserMessage() string { return e.msg }

func parseErrorf(format string, args ...any) *ParseError {
	return &ParseError{msg: fmt.Sprintf(format, args...)}
}

// MaxQuestionLen caps the length of a question, in characters.
const MaxQuestionLen = 500

// example is the question every error message suggests.
const example = "`why is train-7 waiting?` or `diagnose jobset/train-7 -n team-a`"

// ParseRequest turns free text from a mention, DM or slash command into a
// Request. It accepts sentences ("why is my job train-7 waiting?"),
// kind/name forms ("jobset/foo"), namespace/name forms ("team-a/foo"), a
// kind word before the name ("rayjob my-ray"), and namespaces as flags
// ("-n team-a", "--namespace=team-a") or words ("in ns team-b",
// "in team-b"). Slack markup (mentions, links, backticks) is stripped first.
// Errors are *ParseError values whose message says what to type.
func ParseRequest(text string) (Request, error) {
	if utf8.RuneCountInString(text) > MaxQuestionLen {
		return Request{}, parseErrorf("That question is too long for me (over %d characters). Ask about one job, e.g. %s.", MaxQuestionLen, example)
	}
	if !utf8.ValidString(text) {
		return Request{}, parseErrorf("I could not read that text. Ask about one job, e.g. %s.", example)
	}
	toks := tokenize(StripSlackMarkup(text))
	if len(toks) > 0 && (toks[0] == "/kueue" || toks[0] == "/kueuebot") {
		toks = toks[1:]
	}
	p := parser{toks: toks}
	return p.parse()
}

type parser struct {
	toks []string
	i    int

	req       Request
	nsSet     bool
	kindSet   bool
	names     []string
	sawQueue  bool
	queueKind string
}

func (p *parser) next() (string, bool) {
	if p.i >= len(p.toks) {
		return "", false
	}
	t := p.toks[p.i]
	p.i++
	return t, true
}

func (p *parser) peek() (string, bool) {
	if p.i >= len(p.toks) {
		return "", false
	}
	return p.toks[p.i], true
}

func (p *parser) setNamespace(ns string) error {
	if ns == "" {
		return parseErrorf("`-n` needs a namespace after it, e.g. `diagnose train-7 -n team-a`.")
	}
	if err := validateNamespace(ns); err != nil {
		return err
	}
	if p.nsSet && p.req.Namespace != ns {
		return parseErrorf("You named two namespaces, %s and %s. Name one, e.g. `train-7 -n team-a`.", quote(p.req.Namespace), quote(ns))
	}
	p.req.Namespace, p.nsSet = ns, true
	return nil
}

func (p *parser) setKind(k string) error {
	if p.kindSet && p.req.Kind != k {
		return parseErrorf("You named two kinds, %s and %s. Name one, e.g. `jobset/train-7`.", quote(p.req.Kind), quote(k))
	}
	p.req.Kind, p.kindSet = k, true
	return nil
}

func (p *parser) addName(n string) {
	for _, have := range p.names {
		if have == n {
			return
		}
	}
	p.names = append(p.names, n)
}

func (p *parser) parse() (Request, error) {
	if len(p.toks) == 0 {
		return Request{Intent: IntentHelp}, nil
	}
	if isHelpWord(strings.ToLower(p.toks[0])) || p.allFiller() {
		return Request{Intent: IntentHelp}, nil
	}
	first := true
	for {
		tok, ok := p.next()
		if !ok {
			break
		}
		low := strings.ToLower(tok)
		isFirst := first
		first = false
		switch {
		case low == "-n" || low == "--namespace" || low == "-namespace":
			ns, _ := p.next()
			if err := p.setNamespace(ns); err != nil {
				return Request{}, err
			}
		case strings.HasPrefix(low, "--namespace="), strings.HasPrefix(low, "-n="):
			if err := p.setNamespace(tok[strings.IndexByte(tok, '=')+1:]); err != nil {
				return Request{}, err
			}
		case strings.HasPrefix(tok, "-n") && len(tok) > 2 && !strings.HasPrefix(tok, "--"):
			if err := p.setNamespace(tok[2:]); err != nil {
				return Request{}, err
			}
		case strings.HasPrefix(tok, "-"):
			return Request{}, parseErrorf("I do not know the option %s. The only option is `-n NAMESPACE`, e.g. `diagnose train-7 -n team-a`.", quote(tok))
		case low == "namespace" || low == "ns":
			// "namespace team-a", "in ns team-a"
			if nt, ok := p.peek(); ok && !isFiller(strings.ToLower(nt)) {
				p.i++
				if err := p.setNamespace(nt); err != nil {
					return Request{}, err
				}
			}
		case low == "in":
			if err := p.parseIn(); err != nil {
				return Request{}, err
			}
		case queueKinds[low] != "" && (isFirst || !p.sawQueue && p.queueFollows()):
			p.sawQueue = true
			p.queueKind = queueKinds[low]
			if nt, ok := p.peek(); ok && !isFiller(strings.ToLower(nt)) && !strings.HasPrefix(nt, "-") {
				p.i++
				p.addName(nt)
			}
		case queueKinds[low] != "":
			// A queue word used as a noun: "stuck in the queue".
		case jobKinds[low] != "" || genericJobWords[low]:
			if k := jobKinds[low]; k != "" {
				if err := p.setKind(k); err != nil {
					return Request{}, err
				}
			}
			if nt, ok := p.peek(); ok && !isFiller(strings.ToLower(nt)) && !strings.HasPrefix(nt, "-") && strings.ToLower(nt) != "in" {
				p.i++
				if err := p.addRef(nt); err != nil {
					return Request{}, err
				}
			}
		case isFiller(low):
			// skip
		default:
			if err := p.addRef(tok); err != nil {
				return Request{}, err
			}
		}
	}
	return p.finish()
}

// allFiller reports whether the question names nothing ("hi", "hey
// there?").
func (p *parser) allFiller() bool {
	for _, t := range p.toks {
		if !isFiller(strings.ToLower(t)) {
			return false
		}
	}
	return true
}

// queueFollows reports whether a queue word is used as a command ("what
// about queue team-a") rather than as a plain noun ("stuck in the queue").
// A queue word followed by a non-filler name counts as a command only when
// no other name was given before it.
func (p *parser) queueFollows() bool {
	nt, ok := p.peek()
	return ok && len(p.names) == 0 && !p.kindSet && !isFiller(strings.ToLower(nt)) && !strings.HasPrefix(nt, "-")
}

// parseIn handles "in ns X", "in namespace X", "in X" and "in the queue".
func (p *parser) parseIn() error {
	nt, ok := p.peek()
	if !ok {
		return nil
	}
	low := strings.ToLower(nt)
	switch {
	case low == "ns" || low == "namespace":
		p.i++
		ns, _ := p.next()
		return p.setNamespace(ns)
	case isFiller(low) || queueKinds[low] != "" || jobKinds[low] != "":
		return nil
	default:
		p.i++
		return p.setNamespace(nt)
	}
}

// addRef handles a name, "kind/name", "namespace/name" or
// "kind/namespace/name".
func (p *parser) addRef(tok string) error {
	parts := strings.Split(tok, "/")
	switch len(parts) {
	case 1:
		p.addName(tok)
		return nil
	case 2:
		if k := kindOf(parts[0]); k != "" {
			if qk := queueKinds[strings.ToLower(parts[0])]; qk != "" {
				p.sawQueue, p.queueKind = true, qk
			} else if err := p.setKind(k); err != nil {
				return err
			}
			p.addName(parts[1])
			return nil
		}
		if err := p.setNamespace(parts[0]); err != nil {
			return err
		}
		p.addName(parts[1])
		return nil
	case 3:
		k := kindOf(parts[0])
		if k == "" || queueKinds[strings.ToLower(parts[0])] != "" {
			break
		}
		if err := p.setKind(k); err != nil {
			return err
		}
		if err := p.setNamespace(parts[1]); err != nil {
			return err
		}
		p.addName(parts[2])
		return nil
	}
	return parseErrorf("I do not understand %s. Write `kind/name` or `namespace/name`, e.g. `jobset/train-7` or `team-a/train-7`.", quote(tok))
}

func (p *parser) finish() (Request, error) {
	if p.sawQueue {
		p.req.Intent = IntentQueue
		if p.kindSet {
			return Request{}, parseErrorf("Ask about a queue or about a job, not both. E.g. `queue team-a` or %s.", example)
		}
		p.req.Kind = p.queueKind
	} else {
		p.req.Intent = IntentDiagnose
	}
	switch len(p.names) {
	case 0:
		if p.sawQueue {
			return Request{}, parseErrorf("Which queue? Type e.g. `queue team-a` or `clusterqueue cq-gpu`.")
		}
		return Request{}, parseErrorf("I could not find a job name in that. Try %s, or `help`.", example)
	case 1:
	default:
		shown := make([]string, 0, 3)
		for _, n := range p.names[:min(3, len(p.names))] {
			shown = append(shown, quote(n))
		}
		return Request{}, parseErrorf("I am not sure which job you mean (%s). Ask about one job, e.g. %s. If the job's name is a common word, write `job/NAME`.", strings.Join(shown, ", "), example)
	}
	name := p.names[0]
	if err := validateName(name); err != nil {
		return Request{}, err
	}
	p.req.Name = name
	return p.req, nil
}

func validateName(n string) error {
	if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
		return parseErrorf("%s is not a valid Kubernetes name: names use lowercase letters, digits, `-` and `.`, and start and end with a letter or digit.%s Try %s.", quote(n), didYouMean(n, validation.IsDNS1123Subdomain), example)
	}
	return nil
}

func validateNamespace(ns string) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return parseErrorf("%s is not a valid namespace: namespaces use lowercase letters, digits and `-`, at most 63 characters.%s E.g. `train-7 -n team-a`.", quote(ns), didYouMean(ns, validation.IsDNS1123Label))
	}
	return nil
}

// didYouMean suggests the lower-case spelling when that one is valid.
func didYouMean(s string, valid func(string) []string) string {
	low := strings.ToLower(s)
	if low != s && len(valid(low)) == 0 {
		return " Did you mean " + quote(low) + "?"
	}
	return ""
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
