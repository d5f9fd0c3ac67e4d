package fetch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

// sameAsSigsYAML checks that when the fast path converts doc, the JSON
// decodes to what sigs.k8s.io/yaml's does (which must then succeed).
func sameAsSigsYAML(t testing.TB, doc []byte) (fast bool) {
	t.Helper()
	js, ok := fastYAMLToJSON(doc)
	if !ok {
		return false
	}
	want, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("fast path accepted what sigs.k8s.io/yaml refuses (%v):\n%s", err, doc)
	}
	var a, b any
	if err := utiljson.Unmarshal(want, &a); err != nil {
		t.Fatal(err)
	}
	if err := utiljson.Unmarshal(js, &b); err != nil {
		t.Fatalf("fast path wrote invalid JSON %s: %v\n%s", js, err, doc)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("fast path differs (-sigs.k8s.io/yaml +fast):\n%s\ninput:\n%s", diff, doc)
	}
	return true
}

// yamlDocuments splits every committed YAML dump into documents and the
// items of its Lists.
func yamlDocuments(t testing.TB) [][]byte {
	t.Helper()
	var docs [][]byte
	add := func(data []byte) {
		for _, d := range bytes.Split(data, []byte("\n---\n")) {
			docs = append(docs, d)
			if _, items, ok := splitYAMLList(d); ok {
				docs = append(docs, items...)
			}
		}
	}
	if err := fs.WalkDir(examples.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(examples.FS, p)
		add(data)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, glob := range []string{"testdata/*.yaml", "testdata/*/*.yaml", "../testdata/cases/*.txtar", "../../test/e2e/testdata/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			add(data)
		}
	}
	var list bytes.Buffer
	if err := smallCluster().WriteYAMLList(&list); err != nil {
		t.Fatal(err)
	}
	add(list.Bytes())
	return docs
}

func TestFastYAMLMatchesSigsYAML(t *testing.T) {
	docs := yamlDocuments(t)
	fast := 0
	for _, d := range docs {
		if sameAsSigsYAML(t, d) {
			fast++
		}
	}
	t.Logf("fast path took %d of %d documents and items", fast, len(docs))
	// What kubectl writes takes the fast path.
	var list bytes.Buffer
	c := gencluster.Generate(gencluster.Spec{Workloads: 100, Namespaces: 5, ClusterQueues: 2, CohortSize: 2, Jobs: true})
	if err := c.WriteYAMLList(&list); err != nil {
		t.Fatal(err)
	}
	_, items, ok := splitYAMLList(list.Bytes())
	if !ok {
		t.Fatal("generated List not cut")
	}
	for _, it := range items {
		if !sameAsSigsYAML(t, it) {
			t.Errorf("a kubectl-style item missed the fast path:\n%s", it)
			break
		}
	}
}

func TestFastYAMLCases(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		fast bool
	}{
		{"plain scalars resolve as go-yaml v2", "a: yes\nb: off\nc: ~\nd: 0x1F\ne: 017\nf: -3\ng: 1_000\nh: 256Mi\ni: v1.2\nj: null\nk: NULL\nl: y\n", true},
		{"folded single quotes", "m: 'couldn''t assign flavors to pod set main: insufficient unused quota\n  for cpu in flavor default, 1 more needed'\n", true},
		{"folded double quotes with escapes", "m: \"a\\tb \\\"c\\\" \\u00e9\n  d\n\n  e\"\n", true},
		{"folded plain scalar", "m: one two\n  three\n\n  four\nn: x\n", true},
		{"literal keeps, clips, strips", "a: |\n  x\n   y\n\nb: |-\n  z\n\nc: |+\n  w\n\nd: e\n", true},
		{"sequences at the key's column and nested", "a:\n- x\n- k: v\n  l:\n  - 1\n  - 2\n- - nested\n", false},
		{"sequences at the key's column", "a:\n- x\n- k: v\n  l:\n  - 1\n  - 2\nb: []\nc: {}\n", true},
		{"quoted keys, int and bool keys", "\"a b\": 1\n'c': 2\n3: x\ntrue: y\n", true},
		{"comments", "# head\na: 1\n# mid\nb: 2\n", true},
		{"comment after a value", "a: 1 # one\n", false},
		{"float", "a: 1.5\n", false},
		{"timestamp", "a: 2026-11-29T10:48:12Z\n", false},
		{"anchor", "a: &x 1\nb: *x\n", false},
		{"tag", "a: !!str 1\n", false},
		{"flow", "a: [1, 2]\n", false},
		{"folded block", "a: >\n  x\n", false},
		{"merge key", "<<: {a: 1}\n", false},
		{"duplicate key", "a: 1\na: 2\n", false},
		{"tab", "a:\t1\n", false},
		{"control character", "a: b\x01c\n", false},
		{"mapping value in a plain scalar", "a: b: c\n", false},
		{"bad indentation", "a: 1\n  b: 2\n", false},
		{"literal at the end without a line break", "a: |\n  x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameAsSigsYAML(t, []byte(tc.doc)); got != tc.fast {
				t.Errorf("fast path taken = %v, want %v", got, tc.fast)
			}
		})
	}
}

func FuzzFastYAML(f *testing.F) {
	for _, d := range yamlDocuments(f) {
		if len(d) < 4096 {
			f.Add(d)
		}
	}
	for _, s := range []string{"a: 'x\n  y'\n", "a: |\n  x\n\n", "- a: 1\n  b:\n  - c\n", "a: \"\\x41\\n\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if strings.Count(string(doc), "\n") > 200 {
			return
		}
		sameAsSigsYAML(t, doc)
	})
}
