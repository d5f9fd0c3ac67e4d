package i18n

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Entry is one catalog entry: an ID, the kinds of its arguments in order,
// and its text in each language.
//
// A text is a fmt format whose verbs name their argument by index:
// "%[1]s" for every kind but Num, "%[2]d" for a Num (it is localized:
// "1,234", French "1 234"). Plural forms are written inline as
// {N|selector:text|selector:text}, N the index of a Num argument and the
// selectors CLDR's plural categories (zero, one, two, few, many, other) or
// an exact value (=0, =1); "other" is required. The language's CLDR rules
// choose: English and French have one and other (French's one is 0 and 1),
// Japanese and Chinese have other only. Inside a form, %[N]d prints the
// number:
//
//	En: "{1|one:%[1]d pod|other:%[1]d pods} of %[2]s wait",
//	Fr: "{1|one:%[1]d pod|other:%[1]d pods} de %[2]s attendent",
//	Ja: "%[2]s の Pod %[1]d 個が待機しています",
//	Zh: "%[2]s 的 %[1]d 个 Pod 正在等待",
//
// Every language uses the same arguments as English with the same verbs
// (i18ntest.CheckCatalog fails otherwise); one may leave an argument out
// where its language does not need it only if Optional lists it.
type Entry struct {
	ID             ID
	Args           []Kind
	En, Fr, Ja, Zh string
	// Optional lists argument indexes (1-based) a translation may leave out
	// (a count that English needs for its plural but Japanese does not).
	Optional []int
}

// E is the Entry id with argument kinds args and its texts in English,
// French, Japanese and Chinese, in that order: the short form of a catalog
// file that declares many entries.
//
//	var _ = i18n.Register(
//		i18n.E("bot.notice.busy", i18n.Kinds(i18n.KindDur),
//			"I am busy; ask again in %[1]s.",
//			"Je suis occupé ; redemandez dans %[1]s.",
//			"ただいま混み合っています。%[1]s後にもう一度お尋ねください。",
//			"我现在很忙，请在 %[1]s 后再问。"),
//	)
//
// A package that writes E and Kinds on every line may bind shorter local
// names to them (var e, k = i18n.E, i18n.Kinds).
func E(id ID, args []Kind, en, fr, ja, zh string) Entry {
	return Entry{ID: id, Args: args, En: en, Fr: fr, Ja: ja, Zh: zh}
}

// Kinds lists the kinds of an entry's arguments, in order, for E. An entry
// without arguments has nil (Kinds()).
func Kinds(kinds ...Kind) []Kind { return kinds }

// Text returns the entry's text in l.
func (e Entry) Text(l Lang) string {
	switch l {
	case French:
		return e.Fr
	case Japanese:
		return e.Ja
	case Chinese:
		return e.Zh
	}
	return e.En
}

var (
	mu       sync.RWMutex
	entries  = map[ID]Entry{}
	builder  = catalog.NewBuilder(catalog.Fallback(language.English))
	printers [len(codes)]*message.Printer
	rePlural = regexp.MustCompile(`\{(\d+)\|([^{}]*)\}`)
)

// Register adds a package's entries to the catalog, typically from a
// package-level var:
//
//	var _ = i18n.Register(
//		i18n.Entry{ID: "diagnose.headline.exceedsMaxQuota",
//			Args: []i18n.Kind{i18n.KindObject, i18n.KindObject},
//			En: "%[1]s asks for more than ClusterQueue %[2]s can ever hold.",
//			Fr: "...", Ja: "...", Zh: "..."},
//	)
//
// It panics on a duplicate ID or a text it cannot compile: both are
// programming errors that every test run catches at init. It returns the
// number of entries registered.
func Register(es ...Entry) int {
	mu.Lock()
	defer mu.Unlock()
	for _, e := range es {
		if e.ID == "" {
			panic("i18n: entry without ID")
		}
		if _, dup := entries[e.ID]; dup {
			panic("i18n: duplicate ID " + string(e.ID))
		}
		for _, l := range All() {
			text := e.Text(l)
			if text == "" && l != English {
				continue // falls back to English; CheckCatalog fails on it
			}
			msgs, err := compile(string(e.ID), text)
			if err != nil {
				panic(fmt.Sprintf("i18n: %s (%s): %v", e.ID, l, err))
			}
			if err := builder.Set(l.Tag(), string(e.ID), msgs...); err != nil {
				panic(fmt.Sprintf("i18n: %s (%s): %v", e.ID, l, err))
			}
		}
		entries[e.ID] = e
	}
	return len(es)
}

// compile turns a text with inline plural forms into catalog messages: one
// catalog.Var per form, selecting with plural.Selectf on its argument.
func compile(id, text string) ([]catalog.Message, error) {
	var vars []catalog.Message
	var err error
	n := 0
	format := rePlural.ReplaceAllStringFunc(text, func(m string) string {
		sub := rePlural.FindStringSubmatch(m)
		arg, _ := strconv.Atoi(sub[1])
		var cases []any
		hasOther := false
		for _, c := range strings.Split(sub[2], "|") {
			sel, form, ok := strings.Cut(c, ":")
			if !ok {
				err = fmt.Errorf("plural form %q has no selector", c)
				return m
			}
			if sel == "other" {
				hasOther = true
			}
			cases = append(cases, sel, form)
		}
		if !hasOther {
			err = fmt.Errorf("plural %q has no other form", m)
		}
		n++
		name := "p" + strconv.Itoa(n)
		vars = append(vars, catalog.Var(name, plural.Selectf(arg, "%d", cases...)))
		return "${" + name + "}"
	})
	if err != nil {
		return nil, err
	}
	if strings.Contains(format, "{") && strings.Contains(format, "|") {
		return nil, fmt.Errorf("%s: malformed plural form in %q", id, text)
	}
	return append(vars, catalog.String(format)), nil
}

// Lookup returns the entry for id.
func Lookup(id ID) (Entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := entries[id]
	return e, ok
}

// Entries returns every registered entry, sorted by ID.
func Entries() []Entry {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func printer(l Lang) *message.Printer {
	if int(l) >= len(codes) {
		l = English
	}
	mu.RLock()
	p := printers[l]
	mu.RUnlock()
	if p != nil {
		return p
	}
	mu.Lock()
	defer mu.Unlock()
	if printers[l] == nil {
		printers[l] = message.NewPrinter(l.Tag(), message.Catalog(builder))
	}
	return printers[l]
}

// Render renders m in l: the entry's text in l (English when l has none),
// with each argument rendered in l. An ID the catalog does not hold renders
// as "!(ID)" so that a test sees it; the zero Message renders as "".
func Render(l Lang, m Message) string {
	if m.ID == "" {
		return ""
	}
	if _, ok := Lookup(m.ID); !ok {
		return "!(" + string(m.ID) + ")"
	}
	p := printer(l)
	var small [6]any
	args := small[:0]
	for _, a := range m.Args {
		args = append(args, argValue(l, a))
	}
	return p.Sprintf(string(m.ID), args...)
}

// argValue is what the printer formats for a: an int64 for Num (localized by
// the printer, selected on by plural forms), the rendered text otherwise.
func argValue(l Lang, a Arg) any {
	switch v := a.(type) {
	case Num:
		return int64(v)
	case Object:
		return v.text()
	case Name:
		return string(v)
	case Qty:
		return string(v)
	case Verbatim:
		return string(v)
	case Dur:
		return FormatDuration(l, v)
	case DurRange:
		return FormatDurationRange(l, v.Lo, v.Hi)
	case Message:
		return Render(l, v)
	case List:
		items := make([]string, len(v.Items))
		for i, x := range v.Items {
			if n, ok := x.(Num); ok {
				items[i] = FormatNum(l, int64(n))
				continue
			}
			items[i] = fmt.Sprint(argValue(l, x))
		}
		return joinList(l, items, v.Or, v.Commas, v.Sentences, v.Semicolons)
	case nil:
		return ""
	}
	return fmt.Sprint(a)
}
