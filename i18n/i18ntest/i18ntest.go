// Package i18ntest holds the checks every package with catalog entries runs
// in its tests:
//
//   - CheckCatalog: every entry has a text in all four languages, using the
//     same arguments with the same verbs as English, each of the declared
//     kind; each text renders without a fmt error.
//   - CheckMessage: a Message's arguments match its entry's declaration
//     (count and kinds), nested messages included.
//   - ProseOutsideCatalog: fails when a listed package's non-test Go files
//     build an English sentence outside the catalog (a string literal that
//     reads like prose), with a small explicit allowlist.
//   - Untranslated / AssertTranslated: a non-English rendering holds no
//     English prose once quoted evidence, commands, object names and
//     quantities are set aside.
//
// A package's catalog test is typically:
//
//	func TestCatalog(t *testing.T) {
//		i18ntest.CheckCatalog(t, "diagnose.")
//		i18ntest.ProseOutsideCatalog(t, ".", nil)
//	}
package i18ntest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/kueuebot/kueuebot/i18n"
)

var reVerb = regexp.MustCompile(`%\[(\d+)\]([a-z])`)
var rePluralRef = regexp.MustCompile(`\{(\d+)\|`)

// refs returns the verb each argument index is used with in text ('d', 's',
// 'v'); plural selectors count as 'd'.
func refs(text string) map[int]byte {
	out := map[int]byte{}
	for _, m := range reVerb.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out[n] = m[2][0]
	}
	for _, m := range rePluralRef.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		if _, ok := out[n]; !ok {
			out[n] = 'd'
		}
	}
	return out
}

// CheckCatalog checks every registered entry whose ID starts with prefix
// ("" for all).
func CheckCatalog(t testing.TB, prefix string) {
	t.Helper()
	n := 0
	for _, e := range i18n.Entries() {
		if !strings.HasPrefix(string(e.ID), prefix) {
			continue
		}
		n++
		for _, err := range EntryErrors(e) {
			t.Errorf("%s: %v", e.ID, err)
		}
	}
	if n == 0 {
		t.Errorf("no catalog entry has the prefix %q", prefix)
	}
}

// EntryErrors returns what is wrong with one entry; CheckCatalog reports it.
func EntryErrors(e i18n.Entry) []error {
	var errs []error
	en := refs(e.En)
	for i, k := range e.Args {
		verb, used := en[i+1]
		if !used && !slices.Contains(e.Optional, i+1) {
			errs = append(errs, fmt.Errorf("argument %d (%s) is declared but English does not use it", i+1, k))
			continue
		}
		if used && (k == i18n.KindNum) != (verb == 'd') {
			errs = append(errs, fmt.Errorf("argument %d (%s) is used with %%%c (Num takes %%d, every other kind %%s)", i+1, k, verb))
		}
	}
	for i := range en {
		if i < 1 || i > len(e.Args) {
			errs = append(errs, fmt.Errorf("the English text uses argument %d, but %d are declared", i, len(e.Args)))
		}
	}
	for _, l := range i18n.All()[1:] {
		text := e.Text(l)
		if strings.TrimSpace(text) == "" && strings.TrimSpace(e.En) != "" {
			errs = append(errs, fmt.Errorf("no %s text", l))
			continue
		}
		got := refs(text)
		for i, v := range en {
			gv, ok := got[i]
			switch {
			case !ok && !slices.Contains(e.Optional, i):
				errs = append(errs, fmt.Errorf("%s does not use argument %d", l, i))
			case ok && gv != v:
				errs = append(errs, fmt.Errorf("%s uses argument %d with %%%c, English with %%%c", l, i, gv, v))
			}
		}
		for i := range got {
			if _, ok := en[i]; !ok {
				errs = append(errs, fmt.Errorf("%s uses argument %d, which English does not", l, i))
			}
		}
	}
	sample := sampleArgs(e.Args)
	for _, l := range i18n.All() {
		s := i18n.Render(l, i18n.M(e.ID, sample...))
		if strings.Contains(s, "%!") || strings.Contains(s, "${") {
			errs = append(errs, fmt.Errorf("%s renders with a format error: %q", l, s))
		}
	}
	return errs
}

func sampleArgs(kinds []i18n.Kind) []i18n.Arg {
	out := make([]i18n.Arg, len(kinds))
	for i, k := range kinds {
		switch k {
		case i18n.KindObject:
			out[i] = i18n.Obj("ClusterQueue", "", "cq")
		case i18n.KindName:
			out[i] = i18n.Name("cpu")
		case i18n.KindQty:
			out[i] = i18n.Qty("2")
		case i18n.KindNum:
			out[i] = i18n.Num(2)
		case i18n.KindDur:
			out[i] = i18n.Dur(90e9)
		case i18n.KindVerbatim:
			out[i] = i18n.Verbatim("kubectl get pods")
		case i18n.KindList:
			out[i] = i18n.And(i18n.Names("a", "b")...)
		default:
			out[i] = i18n.Message{}
		}
	}
	return out
}

// CheckMessage fails t when m (or a Message nested in its arguments) has an
// ID the catalog lacks, or arguments that do not match its entry's
// declaration.
func CheckMessage(t testing.TB, m i18n.Message) {
	t.Helper()
	for _, err := range MessageErrors(m) {
		t.Error(err)
	}
}

// MessageErrors returns what CheckMessage reports.
func MessageErrors(m i18n.Message) []error {
	if m.IsZero() {
		return nil
	}
	e, ok := i18n.Lookup(m.ID)
	if !ok {
		return []error{fmt.Errorf("%s: not in the catalog", m.ID)}
	}
	var errs []error
	if len(m.Args) != len(e.Args) {
		errs = append(errs, fmt.Errorf("%s: %d arguments, the entry declares %d", m.ID, len(m.Args), len(e.Args)))
	}
	var walk func(a i18n.Arg)
	walk = func(a i18n.Arg) {
		switch v := a.(type) {
		case i18n.Message:
			errs = append(errs, MessageErrors(v)...)
		case i18n.List:
			for _, x := range v.Items {
				walk(x)
			}
		}
	}
	for i, a := range m.Args {
		if a == nil {
			errs = append(errs, fmt.Errorf("%s: argument %d is nil", m.ID, i+1))
			continue
		}
		if i < len(e.Args) && a.ArgKind() != e.Args[i] {
			errs = append(errs, fmt.Errorf("%s: argument %d is a %s, the entry declares %s", m.ID, i+1, a.ArgKind(), e.Args[i]))
		}
		walk(a)
	}
	return errs
}

// englishWords are English function words and common verbs of kueuebot's
// answers that are not French (nor Japanese or Chinese) words: one of them
// outside code, quotes and names is English prose.
var englishWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the is are was were be been being and of to for with than can cannot could
		will would not this that these those it its has have had from by which when what who why how
		there their they them you your yours we our asks ask asked needs need needed waiting wait waits
		more less only also because into onto until while after before should must does doesn't don't
		isn't aren't won't can't any every each other another here then so such some no yes
		run runs running starts start started fits fit holds hold admitted admit free used queue queues
		nodes node flavor flavors requests request borrow lend limit limits waiting
		estimate likely most within under about over hour hours`) {
		englishWords[w] = true
	}
}

var (
	reBacktick = regexp.MustCompile("```[\\s\\S]*?```|`[^`\n]*`")
	reQuoted   = regexp.MustCompile(`"[^"\n]*"|“[^”\n]*”|「[^」\n]*」|«[^»\n]*»`)
	reWord     = regexp.MustCompile(`[A-Za-z][A-Za-z'’]*`)
	reURL      = regexp.MustCompile(`(https?://|<)[^\s>]+>?`)
)

// Untranslated returns the English prose s still holds, as the words found,
// once it has set aside: each of verbatim (pass the report's evidence
// messages, commands, object names, quantities), text in backticks, code
// blocks or quotes, URLs and Slack links, command lines ("$ ..."), and words
// joined to names (with "/", "-", ".", ":", "=", digits). Words of the
// allow list (Kueue's kinds, Pod, "kubectl") never count.
func Untranslated(s string, verbatim ...string) []string {
	vs := slices.Clone(verbatim)
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			s = strings.ReplaceAll(s, v, " ")
		}
	}
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		tl := strings.TrimSpace(line)
		if strings.HasPrefix(tl, "$ ") || strings.HasPrefix(tl, "kubectl ") {
			continue
		}
		lines = append(lines, line)
	}
	s = strings.Join(lines, "\n")
	s = reBacktick.ReplaceAllString(s, " ")
	s = reURL.ReplaceAllString(s, " ")
	s = reQuoted.ReplaceAllString(s, " ")
	var found []string
	for _, loc := range reWord.FindAllStringIndex(s, -1) {
		if joined(s, loc[0]-1) || joined(s, loc[1]) {
			continue
		}
		w := s[loc[0]:loc[1]]
		if englishWords[strings.ToLower(w)] {
			found = append(found, w)
		}
	}
	return found
}

// joined reports whether the byte at i makes the word a part of a name.
func joined(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := rune(s[i])
	return strings.ContainsRune("/-._:=@#*<>{}[]", c) || unicode.IsDigit(c)
}

// AssertTranslated fails t when s, rendered in l, holds English prose (see
// Untranslated). English renderings are not checked.
func AssertTranslated(t testing.TB, l i18n.Lang, s string, verbatim ...string) {
	t.Helper()
	if l == i18n.English {
		return
	}
	if words := Untranslated(s, verbatim...); len(words) > 0 {
		t.Errorf("%s rendering holds untranslated English %q in:\n%s", l, words, s)
	}
}

// Allow is one allowlisted literal for ProseOutsideCatalog: the file's base
// name and the literal's text (or a prefix of it ending in "...").
type Allow struct{ File, Text string }

// calls whose string arguments are not user-visible prose: errors and logs
// (for operators, in English), parsing of Kueue's and Kubernetes' messages,
// regular expressions, the catalog itself.
var skipCalls = map[string]bool{
	"errors.New": true, "fmt.Errorf": true, "regexp.MustCompile": true, "regexp.Compile": true,
	"strings.HasPrefix": true, "strings.HasSuffix": true, "strings.Contains": true, "strings.TrimPrefix": true,
	"strings.TrimSuffix": true, "strings.Index": true, "strings.Cut": true, "strings.EqualFold": true,
	"strings.ContainsAny": true, "strings.Split": true, "strings.ReplaceAll": true,
	"i18n.M": true, "i18n.Verbatim": true, "i18n.Name": true, "i18n.Obj": true, "i18n.Ref": true,
	"panic": true, "slog.Info": true, "slog.Warn": true, "slog.Error": true, "slog.Debug": true,
}

// ProseOutsideCatalog fails t when a non-test Go file of dir holds a string
// literal that reads like an English sentence (three or more words, two of
// them English function words) outside the catalog: not a catalog Entry's
// text, not the argument of an error, a log call, a regexp or a string
// comparison (parsing Kueue's messages), not a struct tag, not a constant
// compared with ==. allow lists the literals that stay (the JSON contract's
// English-only text, for one).
func ProseOutsideCatalog(t testing.TB, dir string, allow []Allow) {
	t.Helper()
	for _, p := range ProseLiterals(t, dir, allow) {
		t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
	}
}

// Prose is one literal ProseOutsideCatalog reports.
type Prose struct {
	Pos  string
	Text string
}

// ProseLiterals returns what ProseOutsideCatalog reports.
func ProseLiterals(t testing.TB, dir string, allow []Allow) []Prose {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []Prose
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.Field:
				if v.Tag != nil {
					skip[v.Tag] = true
				}
			case *ast.ImportSpec:
				skip[v.Path] = true
			case *ast.CallExpr:
				if name := callName(v.Fun); skipCalls[name] || strings.HasSuffix(name, "Register") || isLogCall(v.Fun) {
					markLits(v, skip)
				}
			case *ast.BinaryExpr:
				if v.Op == token.EQL || v.Op == token.NEQ {
					markLits(v, skip)
				}
			case *ast.CompositeLit:
				if isEntry(v.Type) {
					markLits(v, skip)
				}
			case *ast.CaseClause:
				for _, e := range v.List {
					markLits(e, skip)
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || skip[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !LooksLikeProse(s) {
				return true
			}
			base := filepath.Base(name)
			for _, a := range allow {
				if a.File == base && (a.Text == s || (strings.HasSuffix(a.Text, "...") && strings.HasPrefix(s, strings.TrimSuffix(a.Text, "...")))) {
					return true
				}
			}
			out = append(out, Prose{Pos: fset.Position(lit.Pos()).String(), Text: strconv.Quote(s)})
			return true
		})
	}
	return out
}

func callName(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.Ident:
		return v.Name
	case *ast.SelectorExpr:
		if x, ok := v.X.(*ast.Ident); ok {
			return x.Name + "." + v.Sel.Name
		}
	}
	return ""
}

// logMethods are slog.Logger's methods: their messages are for operators,
// in English, whatever the receiver (n.Log.Warn, b.log().InfoContext).
var logMethods = map[string]bool{
	"Debug": true, "Info": true, "Warn": true, "Error": true,
	"DebugContext": true, "InfoContext": true, "WarnContext": true, "ErrorContext": true, "Log": true, "LogAttrs": true,
}

func isLogCall(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && logMethods[sel.Sel.Name]
}

func isEntry(e ast.Expr) bool {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return sel.Sel.Name == "Entry"
	}
	return false
}

func markLits(n ast.Node, skip map[*ast.BasicLit]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok {
			skip[lit] = true
		}
		return true
	})
}

// LooksLikeProse reports whether s reads like English prose: at least three
// words of letters, at least two of them English function words, once
// format verbs are set aside.
func LooksLikeProse(s string) bool {
	s = reVerb.ReplaceAllString(s, " ")
	s = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`).ReplaceAllString(s, " ")
	words := 0
	function := 0
	for _, loc := range reWord.FindAllStringIndex(s, -1) {
		if joined(s, loc[0]-1) || joined(s, loc[1]) {
			continue
		}
		words++
		if englishWords[strings.ToLower(s[loc[0]:loc[1]])] {
			function++
		}
	}
	return words >= 3 && function >= 2
}
