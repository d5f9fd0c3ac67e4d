package i18n

import (
	"strings"
	"time"
)

// ID names one catalog entry. By convention it is "<package>.<what>", e.g.
// "diagnose.headline.exceedsMaxQuota"; IDs never appear in output.
type ID string

// Message is a sentence (or a phrase, a heading, a button label) as the pure
// core returns it: a catalog ID and typed arguments. It holds no language:
// Render, In and String choose one. The zero Message renders as "".
type Message struct {
	ID   ID
	Args []Arg
}

// M builds a Message. Every argument is one of this package's Arg types
// (Object, Name, Qty, Num, Dur, Verbatim, List, a nested Message), so what
// a sentence names (the object, the quantity) is data, not text; the
// catalog's tests check that the arguments match the entry's declaration.
func M(id ID, args ...Arg) Message { return Message{ID: id, Args: args} }

// IsZero reports whether m is the zero Message.
func (m Message) IsZero() bool { return m.ID == "" }

// String renders m in English, the language of the JSON contract's text
// fields and of logs.
func (m Message) String() string { return Render(English, m) }

// In renders m in language l.
func (m Message) In(l Lang) string { return Render(l, m) }

// Objects returns every Object m names, nested messages and lists included,
// in argument order: "the answer names the ClusterQueue" is
// slices.ContainsFunc(m.Objects(), ...).
func (m Message) Objects() []Object {
	var out []Object
	var walk func(a Arg)
	walk = func(a Arg) {
		switch v := a.(type) {
		case Object:
			out = append(out, v)
		case Message:
			for _, x := range v.Args {
				walk(x)
			}
		case List:
			for _, x := range v.Items {
				walk(x)
			}
		}
	}
	walk(m)
	return out
}

// Arg is one typed argument of a Message. Its kind decides how it renders:
// names, quantities and verbatim text stay as they are in every language;
// numbers, durations and lists follow the language's conventions; a nested
// Message is rendered in the same language.
type Arg interface {
	// ArgKind is the argument's kind, declared by the catalog entry.
	ArgKind() Kind
}

// Kind is the kind of a Message argument.
type Kind uint8

// Argument kinds. A catalog entry declares one per argument, in order.
const (
	KindObject   Kind = iota + 1 // Object: a Kubernetes object, rendered as its name (or kind/name)
	KindName                     // Name: a name that is not an object: pod set, resource, label, reason
	KindQty                      // Qty: a Kubernetes quantity, as written
	KindNum                      // Num: an integer, localized; plural forms select on it
	KindDur                      // Dur: a duration, in the language's units
	KindVerbatim                 // Verbatim: a command, a field path, Kueue's or Kubernetes' own message
	KindList                     // List: several Args joined the language's way
	KindMsg                      // Message: a nested sentence or phrase
)

var kindNames = [...]string{"", "Object", "Name", "Qty", "Num", "Dur", "Verbatim", "List", "Message"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Object is a Kubernetes object a message names. It renders as Name, or as
// Kind/Name (kubectl's form, "job/sample-job") when Ref is set; Kind and
// Namespace are there so tests can check which object a message names. Write
// the kind word in the translation ("ClusterQueue %[1]s"), not in Name.
type Object struct {
	Kind      string
	Namespace string
	Name      string
	Ref       bool
}

// ArgKind implements Arg.
func (Object) ArgKind() Kind { return KindObject }

// Obj is an Object rendered as its name.
func Obj(kind, namespace, name string) Object {
	return Object{Kind: kind, Namespace: namespace, Name: name}
}

// Ref is an Object rendered as kind/name ("job/sample-job"), with the kind
// as given.
func Ref(kind, namespace, name string) Object {
	return Object{Kind: kind, Namespace: namespace, Name: name, Ref: true}
}

func (o Object) text() string {
	if o.Ref && o.Kind != "" {
		return o.Kind + "/" + o.Name
	}
	return o.Name
}

// Name is a name that is not a Kubernetes object: a pod set, a resource
// ("cpu", "nvidia.com/gpu"), a label key, a condition reason. It renders as
// it is.
type Name string

// ArgKind implements Arg.
func (Name) ArgKind() Kind { return KindName }

// Qty is a Kubernetes quantity as written ("1500m", "2Gi"); it renders as it
// is in every language.
type Qty string

// ArgKind implements Arg.
func (Qty) ArgKind() Kind { return KindQty }

// Num is an integer: it renders with the language's digit grouping ("1,234",
// French "1 234") and plural forms select on it.
type Num int64

// ArgKind implements Arg.
func (Num) ArgKind() Kind { return KindNum }

// Dur is a duration: it renders in the language's units, rounded as an
// answer shows it ("12 min", "1 h 20 min", "2 d 3 h"; ja "1時間20分"; zh
// "1小时20分钟"; under a minute: "under a minute").
type Dur time.Duration

// ArgKind implements Arg.
func (Dur) ArgKind() Kind { return KindDur }

// Verbatim is text that stays as it is in every language: a kubectl command,
// a field path, a YAML snippet, a message Kueue or Kubernetes wrote (quoted
// as evidence).
type Verbatim string

// ArgKind implements Arg.
func (Verbatim) ArgKind() Kind { return KindVerbatim }

// List is several arguments joined the language's way: "a, b and c", "a, b
// et c", "a、b、c". With Or set: "a, b or c", "a, b ou c", "a、b、または c",
// "a、b 或 c".
type List struct {
	Items []Arg
	Or    bool
	// Commas joins every item with a comma (", "; ja and zh "、"), with no
	// conjunction: a list of names.
	Commas bool
	// Sentences joins every item with a space (ja and zh: nothing), for
	// sentences that follow one another.
	Sentences bool
	// Semicolons joins every item with "; " (ja and zh "；").
	Semicolons bool
}

// Join is a Message of several sentences that follow one another: a space
// apart in English and French, nothing between them in Japanese and Chinese.
// Zero messages are left out.
func Join(ms ...Message) Message {
	items := make([]Arg, 0, len(ms))
	for _, m := range ms {
		if !m.IsZero() {
			items = append(items, m)
		}
	}
	if len(items) == 1 {
		return items[0].(Message)
	}
	return M("i18n.join", List{Items: items, Sentences: true})
}

var _ = Register(Entry{ID: "i18n.join", Args: []Kind{KindList}, En: "%[1]s", Fr: "%[1]s", Ja: "%[1]s", Zh: "%[1]s"})

// ArgKind implements Arg.
func (List) ArgKind() Kind { return KindList }

// And is a List joined with "and".
func And(items ...Arg) List { return List{Items: items} }

// Or is a List joined with "or".
func Or(items ...Arg) List { return List{Items: items, Or: true} }

// Commas is a List joined with commas only: "a, b, c", ja and zh "a、b、c".
func Commas(items ...Arg) List { return List{Items: items, Commas: true} }

// Verbatims returns the text of every argument of m that renders as it is
// in every language (Object, Name, Qty, Verbatim), nested messages and lists
// included: what a check for untranslated prose sets aside.
func (m Message) Verbatims() []string {
	var out []string
	var walk func(a Arg)
	walk = func(a Arg) {
		switch v := a.(type) {
		case Object:
			out = append(out, v.text())
		case Name:
			out = append(out, string(v))
		case Qty:
			out = append(out, string(v))
		case Verbatim:
			out = append(out, string(v))
		case Message:
			for _, x := range v.Args {
				walk(x)
			}
		case List:
			for _, x := range v.Items {
				walk(x)
			}
		}
	}
	walk(m)
	return out
}

// ArgKind implements Arg: a Message can be the argument of another.
func (Message) ArgKind() Kind { return KindMsg }

// Names converts strings to Name arguments, for And and Or.
func Names(ss ...string) []Arg {
	out := make([]Arg, len(ss))
	for i, s := range ss {
		out[i] = Name(s)
	}
	return out
}

func joinList(l Lang, items []string, or, commas, sentences, semicolons bool) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	if semicolons {
		if l == Japanese || l == Chinese {
			return strings.Join(items, "；")
		}
		return strings.Join(items, "; ")
	}
	if sentences {
		if l == Japanese || l == Chinese {
			return strings.Join(items, "")
		}
		return strings.Join(items, " ")
	}
	if commas {
		if l == Japanese || l == Chinese {
			return strings.Join(items, "、")
		}
		return strings.Join(items, ", ")
	}
	head := items[:len(items)-1]
	last := items[len(items)-1]
	switch l {
	case French:
		conj := " et "
		if or {
			conj = " ou "
		}
		return strings.Join(head, ", ") + conj + last
	case Japanese:
		if or {
			return strings.Join(head, "、") + "、または " + last
		}
		return strings.Join(head, "、") + "、" + last
	case Chinese:
		if or {
			return strings.Join(head, "、") + " 或 " + last
		}
		return strings.Join(head, "、") + "、" + last
	}
	conj := " and "
	if or {
		conj = " or "
	}
	return strings.Join(head, ", ") + conj + last
}
