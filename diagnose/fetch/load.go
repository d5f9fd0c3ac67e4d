package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// This file reads `kubectl get -o yaml` (or -o json) output into a Store.
//
// Loading is linear in the input and runs on every core: the documents of
// a file are converted from YAML to JSON in parallel with sigs.k8s.io/yaml
// (what kubectl and client-go use; JSON documents are used as they are),
// then each document, or each item of a large List, is decoded in
// parallel, and the objects are added to the store in input order (a later
// copy of an object replaces an earlier one). A JSON dump (kubectl get -o
// json) is the fast path: it needs no conversion, and a List's items are
// cut from it exactly. A YAML List is converted as one document, on one
// core.

// maxDocumentSize bounds one YAML document.
const maxDocumentSize = 64 << 20

// splitListMin is the size from which a List document is cut into its
// items to be decoded in parallel; smaller documents are decoded whole.
// A variable so that tests can exercise both ways on small inputs.
var splitListMin = 256 << 10

// AddFiles loads paths into the store: each path is a file or a folder
// (searched recursively for *.yaml, *.yml and *.json, in sorted order); a
// file holds one object, several YAML documents, or a List (`kind: List`,
// or a typed list such as WorkloadList whose items may omit their kind).
// Kinds the diagnosis does not read are ignored, whatever their content.
// An unreadable file or malformed content is an error naming the file and
// the 1-based document (and item): "dump.yaml: document 3: item 2: Pod p: ...".
// Nothing is added when an error is returned.
func (s *Store) AddFiles(paths ...string) error {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && dumpExt(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return err
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	var inputs []input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		inputs = append(inputs, input{name: f, data: data})
	}
	return s.addInputs(inputs)
}

// AddFS loads every *.yaml, *.yml and *.json file of fsys (recursively, in
// sorted order) as AddFiles does, e.g. an embedded set of scenario dumps.
func (s *Store) AddFS(fsys fs.FS) error {
	var inputs []input
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !dumpExt(p) {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		inputs = append(inputs, input{name: p, data: data})
		return nil
	})
	if err != nil {
		return err
	}
	return s.addInputs(inputs)
}

func dumpExt(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// input is one file's content.
type input struct {
	name string
	data []byte
}

// document is one YAML or JSON document of a file, and its JSON.
type document struct {
	file string
	doc  int // 1-based document index in file
	data []byte
	js   []byte
	// tm is the document's apiVersion, kind and items when the JSON of a
	// large document was read for them (cut is set).
	tm  typeMeta
	cut bool
	err error
}

// piece is a unit of parallel decoding: a document, or one item of a
// List document.
type piece struct {
	file string
	doc  int // 1-based document index in file
	item int // 1-based item index, for list items; 0 for a document
	data []byte
	// listKind is the item kind implied by a typed list
	// (WorkloadList -> Workload), for items that omit it.
	listKind schema.GroupVersionKind
}

// entry is one decoded, normalized object ready for the store.
type entry struct {
	obj kruntime.Object
	gk  schema.GroupKind
}

// result is what decoding a piece produced.
type result struct {
	entries []entry
	err     error
}

// addInputs converts every input to JSON and decodes it, then adds the
// objects in order. Nothing is added on error.
func (s *Store) addInputs(inputs []input) error {
	var docs []document
	for _, in := range inputs {
		ds, err := documents(in)
		if err != nil {
			return err
		}
		docs = append(docs, ds...)
	}
	parallel(len(docs), func(i int) { docs[i].convert() })
	var pieces []piece
	for i := range docs {
		d := &docs[i]
		if d.err != nil {
			return fmt.Errorf("%s: document %d: invalid YAML: %w", d.file, d.doc, d.err)
		}
		pieces = append(pieces, cutDocument(d)...)
	}
	results := make([]result, len(pieces))
	parallel(len(pieces), func(i int) {
		es, err := decodeValue(pieces[i].data, pieces[i].listKind)
		results[i] = result{entries: es, err: err}
	})
	var entries []entry
	for i := range pieces {
		if err := results[i].err; err != nil {
			return pieceError(&pieces[i], err)
		}
		entries = append(entries, results[i].entries...)
	}
	s.addEntries(entries)
	return nil
}

func pieceError(p *piece, err error) error {
	if p.item > 0 {
		return fmt.Errorf("%s: document %d: item %d: %w", p.file, p.doc, p.item, err)
	}
	return fmt.Errorf("%s: document %d: %w", p.file, p.doc, err)
}

// parallel runs fn(0..n-1) on every core.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	// Each worker takes the next few indices itself: a feeding goroutine
	// and a channel operation per item cost a digest of 50,000 Workloads
	// a tenth of its time.
	const chunk = 8
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}

// documents splits one file into its YAML documents (a JSON file is one).
func documents(in input) ([]document, error) {
	if !hasDocumentSeparator(in.data) {
		// One document (what kubectl get -o yaml|json writes): no need to
		// copy it line by line through a YAML reader.
		if len(in.data) > maxDocumentSize {
			return nil, fmt.Errorf("%s: document 1: larger than %d bytes", in.name, maxDocumentSize)
		}
		return []document{{file: in.name, doc: 1, data: in.data}}, nil
	}
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(in.data), 64<<10))
	var out []document
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", in.name, i, err)
		}
		if len(doc) > maxDocumentSize {
			return nil, fmt.Errorf("%s: document %d: larger than %d bytes", in.name, i, maxDocumentSize)
		}
		out = append(out, document{file: in.name, doc: i, data: doc})
	}
}

// hasDocumentSeparator reports whether data may hold a YAML document
// separator: a line that starts with "---".
func hasDocumentSeparator(data []byte) bool {
	return bytes.HasPrefix(data, []byte("---")) || bytes.Contains(data, []byte("\n---"))
}

// convert sets the document's JSON: a JSON document as it is, YAML
// converted by sigs.k8s.io/yaml; nil for an empty document. The JSON of a
// large document is read for its type and items here, which also checks
// that it is JSON, so that a List can be cut into its items.
func (d *document) convert() {
	trimmed := bytes.TrimSpace(d.data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if len(trimmed) >= splitListMin {
			if json.Unmarshal(trimmed, &d.tm) == nil {
				d.js, d.cut = trimmed, true
				return
			}
		} else if json.Valid(trimmed) {
			d.js = trimmed
			return
		}
	}
	js, err := sigsyaml.YAMLToJSON(d.data)
	if js = bytes.TrimSpace(js); err != nil || string(js) == "null" {
		js = nil
	}
	d.js, d.err = js, err
	if err == nil && len(js) > 0 && len(js) >= splitListMin && js[0] == '{' {
		d.cut = json.Unmarshal(js, &d.tm) == nil
	}
}

// cutDocument makes the pieces of a converted document: the document
// itself, or the items of a large List.
func cutDocument(d *document) []piece {
	if len(d.js) == 0 {
		return nil // an empty document
	}
	whole := []piece{{file: d.file, doc: d.doc, data: d.js}}
	if !d.cut {
		return whole
	}
	gv, err := schema.ParseGroupVersion(d.tm.APIVersion)
	if err != nil {
		return whole // decoded whole, for its error
	}
	itemKind, isList := listItemKind(gv.WithKind(d.tm.Kind), &d.tm)
	if !isList {
		return whole
	}
	out := make([]piece, 0, len(d.tm.Items))
	for j, it := range d.tm.Items {
		out = append(out, piece{file: d.file, doc: d.doc, item: j + 1, data: bytes.TrimSpace(it), listKind: itemKind})
	}
	return out
}

// typeMeta is the part of an object needed to dispatch on it.
type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

// decodeValue decodes one JSON object with the scheme, expanding a List.
// listKind, when set, is the kind a typed list's items have when they omit
// apiVersion and kind (`kind: List` items must name theirs).
func decodeValue(js []byte, listKind schema.GroupVersionKind) ([]entry, error) {
	if len(js) == 0 || js[0] != '{' {
		return nil, errors.New("not a Kubernetes object (want a mapping with apiVersion and kind)")
	}
	tm, err := sniffTypeMeta(js)
	if err != nil {
		return nil, fmt.Errorf("not a Kubernetes object: %w", err)
	}
	gvk := listKind
	if tm.APIVersion != "" || tm.Kind != "" {
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("bad apiVersion %q: %w", tm.APIVersion, err)
		}
		gvk = gv.WithKind(tm.Kind)
	}
	if gvk.Kind == "" {
		return nil, errors.New("missing kind")
	}
	if itemKind, ok := listItemKind(gvk, &tm); ok {
		var out []entry
		for i, item := range tm.Items {
			es, err := decodeValue(bytes.TrimSpace(item), itemKind)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			out = append(out, es...)
		}
		return out, nil
	}
	obj, err := decodeKind(js, gvk)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, objectName(js), err)
	}
	if obj == nil {
		return nil, nil // a kind the diagnosis does not use
	}
	out, gk, keep, err := normalize(obj)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, objectName(js), err)
	}
	if !keep {
		return nil, nil
	}
	return []entry{{obj: out, gk: gk}}, nil
}

// sniffTypeMeta reads apiVersion and kind from an object's JSON. When
// both come before any other key (as kubectl, sorting keys, writes every
// object but a List) it stops there, without reading the rest; otherwise
// (a List, whose items come first, or keys in another order) it decodes
// the whole object.
func sniffTypeMeta(js []byte) (typeMeta, error) {
	var tm typeMeta
	dec := json.NewDecoder(bytes.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return tm, errors.New("want a mapping with apiVersion and kind")
	}
	for range 2 {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey || (key != "apiVersion" && key != "kind") {
			return fullTypeMeta(js)
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return fullTypeMeta(js)
		}
		if key == "kind" {
			tm.Kind = v
		} else {
			tm.APIVersion = v
		}
	}
	if tm.APIVersion == "" || tm.Kind == "" || strings.HasSuffix(tm.Kind, "List") {
		return fullTypeMeta(js)
	}
	return tm, nil
}

func fullTypeMeta(js []byte) (typeMeta, error) {
	var tm typeMeta
	err := json.Unmarshal(js, &tm)
	return tm, err
}

// listItemKind reports whether gvk is a list to expand, and the kind its
// items have when they omit it: `kind: List` (and core lists such as
// PodList) of any items, or a typed list of a kind the store keeps
// (WorkloadList, JobList, ...). Lists of other kinds are ignored whole.
func listItemKind(gvk schema.GroupVersionKind, tm *typeMeta) (schema.GroupVersionKind, bool) {
	if !strings.HasSuffix(gvk.Kind, "List") || (gvk.Kind != "List" && tm.Items == nil) {
		return schema.GroupVersionKind{}, false
	}
	if gvk.Kind == "List" {
		return schema.GroupVersionKind{}, gvk.Group == ""
	}
	item := gvk.GroupVersion().WithKind(strings.TrimSuffix(gvk.Kind, "List"))
	return item, gvk.Group == "" || typedKinds[item] || isJobKind(item)
}

// decodeKind decodes js as gvk: typed kinds with the scheme's decoder, job
// kinds of the registry as unstructured objects (after checking that their
// metadata has the right shape). Other kinds give nil.
func decodeKind(js []byte, gvk schema.GroupVersionKind) (kruntime.Object, error) {
	switch {
	case typedKinds[gvk]:
		// gvk is known: decode straight into the scheme's type, as the
		// scheme's deserializer would, without its second pass to read
		// apiVersion and kind.
		obj, err := scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, obj); err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return obj, nil
	case isJobKind(gvk):
		var meta struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(js, &meta); err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := utiljson.Unmarshal(js, &u.Object); err != nil {
			return nil, err
		}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return nil, nil
}

// objectName returns "namespace/name" (or "name") for messages.
func objectName(js []byte) string {
	var m struct {
		Metadata struct {
			Name      any `json:"name"`
			Namespace any `json:"namespace"`
		} `json:"metadata"`
	}
	if json.Unmarshal(js, &m) != nil {
		return "(unnamed)"
	}
	name, _ := m.Metadata.Name.(string)
	ns, _ := m.Metadata.Namespace.(string)
	switch {
	case name == "":
		return "(unnamed)"
	case ns == "":
		return name
	}
	return ns + "/" + name
}
