package i18ntest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kueuebot/kueuebot/i18n"
)

var _ = i18n.Register(
	i18n.Entry{ID: "i18ntest.ok", Args: []i18n.Kind{i18n.KindObject, i18n.KindNum},
		En: "%[1]s holds {2|one:%[2]d pod|other:%[2]d pods}.",
		Fr: "%[1]s contient {2|one:%[2]d pod|other:%[2]d pods}.",
		Ja: "%[1]s には Pod が %[2]d 個あります。",
		Zh: "%[1]s 有 %[2]d 个 Pod。"},
)

func TestCheckCatalog(t *testing.T) {
	CheckCatalog(t, "i18ntest.")
}

func TestEntryErrors(t *testing.T) {
	for name, e := range map[string]i18n.Entry{
		"missing language": {ID: "x", Args: []i18n.Kind{i18n.KindName}, En: "%[1]s", Fr: "%[1]s", Ja: "%[1]s"},
		"missing argument": {ID: "x", Args: []i18n.Kind{i18n.KindName, i18n.KindName}, En: "%[1]s %[2]s", Fr: "%[1]s", Ja: "%[1]s %[2]s", Zh: "%[1]s %[2]s"},
		"verb mismatch":    {ID: "x", Args: []i18n.Kind{i18n.KindNum}, En: "%[1]d", Fr: "%[1]s", Ja: "%[1]d", Zh: "%[1]d"},
		"Num with %s":      {ID: "x", Args: []i18n.Kind{i18n.KindNum}, En: "%[1]s", Fr: "%[1]s", Ja: "%[1]s", Zh: "%[1]s"},
		"undeclared":       {ID: "x", Args: nil, En: "%[1]s", Fr: "%[1]s", Ja: "%[1]s", Zh: "%[1]s"},
		"extra in French":  {ID: "x", Args: []i18n.Kind{i18n.KindName}, En: "%[1]s", Fr: "%[1]s %[2]s", Ja: "%[1]s", Zh: "%[1]s"},
	} {
		if errs := EntryErrors(e); len(errs) == 0 {
			t.Errorf("%s: no error", name)
		}
	}
	e, _ := i18n.Lookup("i18ntest.ok")
	if errs := EntryErrors(e); len(errs) != 0 {
		t.Errorf("valid entry: %v", errs)
	}
}

func TestMessageErrors(t *testing.T) {
	ok := i18n.M("i18ntest.ok", i18n.Obj("ClusterQueue", "", "cq"), i18n.Num(2))
	if errs := MessageErrors(ok); len(errs) != 0 {
		t.Errorf("valid message: %v", errs)
	}
	for name, m := range map[string]i18n.Message{
		"unknown":    i18n.M("i18ntest.nope"),
		"too few":    i18n.M("i18ntest.ok", i18n.Obj("ClusterQueue", "", "cq")),
		"wrong kind": i18n.M("i18ntest.ok", i18n.Name("cq"), i18n.Num(2)),
		"nested":     i18n.M("i18ntest.ok", i18n.Obj("ClusterQueue", "", "cq"), i18n.Num(2), i18n.M("i18ntest.nope")),
	} {
		if errs := MessageErrors(m); len(errs) == 0 {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestUntranslated(t *testing.T) {
	for _, c := range []struct {
		s        string
		verbatim []string
		want     int
	}{
		{"job/sample-job は ClusterQueue cq が保持できる上限を超えています。", nil, 0},
		{"job/sample-job asks for more than ClusterQueue cq can ever hold.", nil, 5},
		{"Kueue のメッセージ: couldn't assign flavors to pod set main", []string{"couldn't assign flavors to pod set main"}, 0},
		{"証拠: \"insufficient unused quota for cpu in flavor default\"", nil, 0},
		{"$ kubectl patch job/x -n team-a --type=merge -p '{\"spec\":{\"parallelism\":2}}'\n実行してください", nil, 0},
		{"Réduisez la taille : `kubectl get pods -n team-a` puis relancez.", nil, 0},
		{"Le job attend que le quota soit libre dans la file d'attente.", nil, 0},
		{"Le job is waiting for quota.", nil, 3},
	} {
		if got := Untranslated(c.s, c.verbatim...); len(got) != c.want {
			t.Errorf("Untranslated(%q) = %q, want %d words", c.s, got, c.want)
		}
	}
}

func TestProseLiterals(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kueuebot/kueuebot/i18n"
)

var _ = i18n.Register(i18n.Entry{ID: "p.x", En: "this is a sentence that the catalog holds"})

type T struct {
	F string ` + "`json:\"the field is not for you\"`" + `
}

func f(s string) (string, error) {
	if strings.HasPrefix(s, "the workload has failed admission checks") {
		return "", errors.New("the cluster is not reachable from here")
	}
	if s == "there is no quota for it" {
		return "allowed: this one is on the list", nil
	}
	_ = fmt.Sprintf("%s asks for more than %s can hold", s, s)
	return "job-name", nil
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := ProseLiterals(t, dir, []Allow{{File: "p.go", Text: "allowed: this one..."}})
	if len(got) != 1 || got[0].Text != `"%s asks for more than %s can hold"` {
		t.Errorf("ProseLiterals = %v, want the Sprintf format only", got)
	}
}
