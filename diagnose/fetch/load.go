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
// Loading is linear in the input and runs on every core: documents, and the
// items of a large `kind: List`, are converted from YAML and decoded in
// parallel, then added to the store in input order (a later copy of an
// object replaces an earlier one). A YAML List is cut into its items along
// the lines kubectl writes (splitYAMLList); when a cut does not parse, the
// document is parsed whole, so the result never depends on the shortcut.

// maxDocumentSize bounds one YAML document.
const maxDocumentSize = 64 << 20

// splitListMin is the size from which a YAML List document is cut into its
// items to be parsed in parallel; smaller documents are parsed whole.
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

// AddData loads one file's content as AddFiles does; name is used in errors.
func (s *Store) AddData(name string, data []byte) error {
	return s.addInputs([]input{{name: name, data: data}})
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

// pieceKind says how a piece is decoded.
type pieceKind int

const (
	// wholeYAML is a YAML (or JSON) document parsed whole.
	wholeYAML pieceKind = iota
	// listHead is the YAML List document without its items.
	listHead
	// listItem is one "- ..." item of a YAML List cut by splitYAMLList.
	listItem
	// jsonItem is one item of a JSON List.
	jsonItem
)

// piece is a unit of parallel decoding.
type piece struct {
	kind pieceKind
	file string
	doc  int // 1-based document index in file
	item int // 1-based item index, for list items
	data []byte
	// whole is the full document, for a listHead or listItem: when any
	// piece of the document fails, the document is parsed whole.
	whole []byte
	// listKind is the item kind implied by a typed JSON list
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
	// list is true when a listHead is a List whose items are kept.
	list bool
}

// addInputs decodes every input, then adds the objects in order. Nothing is
// added on error.
func (s *Store) addInputs(inputs []input) error {
	var pieces []piece
	for _, in := range inputs {
		ps, err := cut(in)
		if err != nil {
			return err
		}
		pieces = append(pieces, ps...)
	}
	results := make([]result, len(pieces))
	parallel(len(pieces), func(i int) { results[i] = decodePiece(&pieces[i]) })

	var entries []entry
	for i := 0; i < len(pieces); {
		p := &pieces[i]
		if p.kind != listHead {
			if err := results[i].err; err != nil {
				return pieceError(p, err)
			}
			entries = append(entries, results[i].entries...)
			i++
			continue
		}
		// A cut List: its head and items, or the document parsed whole
		// when any of them failed.
		end := i + 1
		for end < len(pieces) && pieces[end].kind == listItem && pieces[end].doc == p.doc && pieces[end].file == p.file {
			end++
		}
		ok := results[i].err == nil && results[i].list
		for j := i + 1; j < end && ok; j++ {
			ok = results[j].err == nil
		}
		if ok {
			for j := i + 1; j < end; j++ {
				entries = append(entries, results[j].entries...)
			}
		} else {
			whole := piece{kind: wholeYAML, file: p.file, doc: p.doc, data: p.whole}
			r := decodePiece(&whole)
			if r.err != nil {
				return pieceError(&whole, r.err)
			}
			entries = append(entries, r.entries...)
		}
		i = end
	}
	s.addEntries(entries)
	return nil
}

func pieceError(p *piece, err error) error {
	if p.kind == jsonItem {
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

// cut splits one file into pieces: its documents, and the items of large
// Lists.
func cut(in input) ([]piece, error) {
	if !hasDocumentSeparator(in.data) {
		// One document (what kubectl get -o yaml|json writes): no need to
		// copy it line by line through a YAML reader.
		if len(in.data) > maxDocumentSize {
			return nil, fmt.Errorf("%s: document 1: larger than %d bytes", in.name, maxDocumentSize)
		}
		if len(bytes.TrimSpace(in.data)) == 0 {
			return nil, nil
		}
		return cutDocument(in.name, 1, in.data), nil
	}
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(in.data), 64<<10))
	var out []piece
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
		out = append(out, cutDocument(in.name, i, doc)...)
	}
}

// hasDocumentSeparator reports whether data may hold a YAML document
// separator: a line that starts with "---".
func hasDocumentSeparator(data []byte) bool {
	return bytes.HasPrefix(data, []byte("---")) || bytes.Contains(data, []byte("\n---"))
}

func cutDocument(file string, doc int, data []byte) []piece {
	whole := []piece{{kind: wholeYAML, file: file, doc: doc, data: data}}
	if len(data) < splitListMin {
		return whole
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		// JSON: a List is split into its items exactly.
		var tm typeMeta
		if json.Unmarshal(trimmed, &tm) != nil {
			return whole // not valid JSON (maybe a YAML flow mapping): parsed as YAML
		}
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil {
			return whole
		}
		itemKind, isList := listItemKind(gv.WithKind(tm.Kind), &tm)
		if !isList {
			return whole
		}
		out := make([]piece, 0, len(tm.Items))
		for j, it := range tm.Items {
			out = append(out, piece{kind: jsonItem, file: file, doc: doc, item: j + 1, data: it, listKind: itemKind})
		}
		return out
	}
	head, items, ok := splitYAMLList(data)
	if !ok {
		return whole
	}
	out := make([]piece, 0, len(items)+1)
	out = append(out, piece{kind: listHead, file: file, doc: doc, data: head, whole: data})
	for j, it := range items {
		out = append(out, piece{kind: listItem, file: file, doc: doc, item: j + 1, data: it, whole: data})
	}
	return out
}

// splitYAMLList cuts a YAML document shaped as kubectl writes a List — a
// block mapping at column 0 whose "items:" key holds a block sequence — into
// the mapping without its items (head) and one "- ..." chunk per item. It
// reports ok=false for any other shape. It is a shortcut only, held to give
// what parsing the whole document gives: head lines that could open a
// quoted or flow scalar continuing across the items are refused, as are
// directives, document markers and tabs; and a chunk cut where the YAML
// parser would not have cut leaves an unclosed construct, which fails to
// parse, so the caller parses the document whole.
func splitYAMLList(doc []byte) (head []byte, items [][]byte, ok bool) {
	const (
		inHead = iota
		inItems
		afterItems
	)
	state, indent := inHead, -1
	itemStart := -1
	first := true
	for off := 0; off < len(doc); {
		end := bytes.IndexByte(doc[off:], '\n')
		if end < 0 {
			end = len(doc)
		} else {
			end += off + 1
		}
		line := doc[off:end]
		text := bytes.TrimRight(line, " \r\n")
		content := bytes.TrimLeft(text, " ")
		blank := len(content) == 0 || content[0] == '#'
		lineIndent := len(text) - len(content)
		if bytes.ContainsRune(text, '\t') && !blank {
			return nil, nil, false
		}
		if !blank && lineIndent == 0 && (content[0] == '%' || bytes.HasPrefix(content, []byte("---")) || bytes.HasPrefix(content, []byte("..."))) {
			return nil, nil, false
		}
		if !blank && first {
			// The document must be a mapping at column 0.
			if lineIndent != 0 || content[0] == '-' {
				return nil, nil, false
			}
			first = false
		}
		if state == inItems {
			isEntry := bytes.HasPrefix(content, []byte("- ")) || bytes.Equal(content, []byte("-"))
			switch {
			case blank:
				// Comments and blank lines stay with the item before.
			case indent < 0 && isEntry:
				indent, itemStart = lineIndent, off
			case indent < 0:
				return nil, nil, false // "items:" not followed by a block sequence
			case lineIndent == indent && isEntry:
				items = append(items, doc[itemStart:off])
				itemStart = off
			case lineIndent > indent:
				// Inside the current item.
			case lineIndent == 0:
				// The next key of the mapping ends the items.
				items = append(items, doc[itemStart:off])
				itemStart = -1
				state = afterItems
			default:
				return nil, nil, false
			}
			if state == inItems {
				off = end
				continue
			}
		}
		if !blank && lineIndent == 0 && isItemsKey(text) {
			if state != inHead {
				return nil, nil, false // a second items key
			}
			state = inItems
			off = end
			continue
		}
		if !blank && !plainHeadLine(content) {
			return nil, nil, false
		}
		head = append(head, line...)
		off = end
	}
	if state == inItems && itemStart >= 0 {
		items = append(items, doc[itemStart:])
	}
	if len(items) == 0 {
		return nil, nil, false
	}
	return head, items, true
}

// isItemsKey matches a column-0 "items:" key with nothing after it but a
// comment.
func isItemsKey(text []byte) bool {
	rest, found := bytes.CutPrefix(text, []byte("items:"))
	if !found {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	if rest[0] != ' ' {
		return false // "items:x" is a plain scalar, not a key
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// plainHeadLine refuses a head line that could open a scalar or flow
// collection continuing on later lines: an odd number of quotes, or a
// bracket other than an empty {} or [].
func plainHeadLine(content []byte) bool {
	if bytes.Count(content, []byte(`"`))%2 != 0 || bytes.Count(content, []byte(`'`))%2 != 0 {
		return false
	}
	c := bytes.ReplaceAll(bytes.ReplaceAll(content, []byte("{}"), nil), []byte("[]"), nil)
	return !bytes.ContainsAny(c, "[]{}")
}

// typeMeta is the part of an object needed to dispatch on it.
type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

// yamlToJSON converts YAML to JSON: what kubectl writes through the fast
// path (fastYAMLToJSON, several times faster), anything else through
// sigs.k8s.io/yaml.
func yamlToJSON(doc []byte) ([]byte, error) {
	if js, ok := fastYAMLToJSON(doc); ok {
		return js, nil
	}
	return sigsyaml.YAMLToJSON(doc)
}

// decodePiece converts a piece to JSON and decodes it.
func decodePiece(p *piece) result {
	switch p.kind {
	case jsonItem:
		es, err := decodeValue(bytes.TrimSpace(p.data), p.listKind)
		return result{entries: es, err: err}
	case listItem:
		js, err := yamlToJSON(p.data)
		if err != nil {
			return result{err: err}
		}
		js = bytes.TrimSpace(js)
		if len(js) < 2 || js[0] != '[' || js[len(js)-1] != ']' {
			return result{err: errors.New("not a list item")}
		}
		es, err := decodeValue(bytes.TrimSpace(js[1:len(js)-1]), schema.GroupVersionKind{})
		return result{entries: es, err: err}
	case listHead:
		js, err := yamlToJSON(p.data)
		if err != nil {
			return result{err: err}
		}
		var tm typeMeta
		if err := json.Unmarshal(js, &tm); err != nil || tm.Items != nil {
			return result{err: errors.New("not a list head")}
		}
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil {
			return result{err: err}
		}
		tm.Items = []json.RawMessage{} // the items were cut off
		_, isList := listItemKind(gv.WithKind(tm.Kind), &tm)
		return result{list: isList}
	}
	js, err := yamlToJSON(p.data)
	if err != nil {
		return result{err: fmt.Errorf("invalid YAML: %w", err)}
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return result{} // empty document
	}
	es, err := decodeValue(js, schema.GroupVersionKind{})
	return result{entries: es, err: err}
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
