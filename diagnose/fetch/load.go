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
	"path/filepath"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	sigsyaml "sigs.k8s.io/yaml"
)

// store holds the objects loaded from files, in the order they were read.
// A later copy of the same object replaces an earlier one.
type store struct {
	jobs       []*unstructured.Unstructured // every supported job kind, batch Job included
	pods       []corev1.Pod
	events     []corev1.Event
	namespaces []corev1.Namespace

	workloads       []kueue.Workload
	localQueues     []kueue.LocalQueue
	clusterQueues   []kueue.ClusterQueue
	cohorts         []kueue.Cohort
	flavors         []kueue.ResourceFlavor
	checks          []kueue.AdmissionCheck
	priorityClasses []kueue.WorkloadPriorityClass
}

// loadPaths expands paths (files, or folders searched recursively for
// *.yaml, *.yml and *.json, sorted) and loads every file into a store.
func loadPaths(paths []string) (*store, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
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
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					found = append(found, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	st := &store{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := st.load(f, data); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// maxDocumentSize bounds one YAML document.
const maxDocumentSize = 64 << 20

// load reads one file's documents (multi-document YAML, a `kind: List`, or a
// single object, YAML or JSON). Errors name the file and the 1-based
// document (and item) index.
func (st *store) load(name string, data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(data), 4096))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		if len(doc) > maxDocumentSize {
			return fmt.Errorf("%s: document %d: larger than %d bytes", name, i, maxDocumentSize)
		}
		if err := st.loadDocument(doc); err != nil {
			return fmt.Errorf("%s: document %d: %w", name, i, err)
		}
	}
}

// typeMeta is the part of an object needed to dispatch on it.
type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func (st *store) loadDocument(doc []byte) error {
	js, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		return fmt.Errorf("invalid YAML: %w", err)
	}
	js = bytes.TrimSpace(js)
	if len(js) == 0 || string(js) == "null" {
		return nil // empty document
	}
	return st.loadObject(js)
}

func (st *store) loadObject(js []byte) error {
	if len(js) == 0 || js[0] != '{' {
		return errors.New("not a Kubernetes object (want a mapping with apiVersion and kind)")
	}
	var tm typeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return fmt.Errorf("not a Kubernetes object: %w", err)
	}
	if tm.Kind == "" {
		return errors.New("missing kind")
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return fmt.Errorf("bad apiVersion %q: %w", tm.APIVersion, err)
	}
	if strings.HasSuffix(tm.Kind, "List") && gv.Group == "" && (tm.Kind == "List" || tm.Items != nil) {
		for i, item := range tm.Items {
			if err := st.loadObject(bytes.TrimSpace(item)); err != nil {
				return fmt.Errorf("item %d: %w", i+1, err)
			}
		}
		return nil
	}
	if err := st.add(gv.WithKind(tm.Kind), js); err != nil {
		return fmt.Errorf("%s %s: %w", tm.Kind, objectName(js), err)
	}
	return nil
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

// decode unmarshals js into a new T.
func decode[T any](js []byte) (*T, error) {
	out := new(T)
	if err := json.Unmarshal(js, out); err != nil {
		return nil, err
	}
	return out, nil
}

// upsert appends v, or replaces an earlier item with the same key.
func upsert[T any](list []T, v T, key func(*T) string) []T {
	k := key(&v)
	for i := range list {
		if key(&list[i]) == k {
			list[i] = v
			return list
		}
	}
	return append(list, v)
}

func metaKey[T any, PT interface {
	*T
	metav1.Object
}](v *T) string {
	o := PT(v)
	return o.GetNamespace() + "/" + o.GetName()
}

// decodeConvert decodes an old-version object and converts it.
func decodeConvert[In, Out any](js []byte, conv func(*In) (*Out, error)) (*Out, error) {
	in, err := decode[In](js)
	if err != nil {
		return nil, err
	}
	return conv(in)
}

func (st *store) add(gvk schema.GroupVersionKind, js []byte) error {
	const kueueGroup = "kueue.x-k8s.io"
	switch {
	case gvk.Group == "" && gvk.Version == "v1":
		switch gvk.Kind {
		case "Pod":
			p, err := decode[corev1.Pod](js)
			if err != nil {
				return err
			}
			st.pods = upsert(st.pods, *p, metaKey[corev1.Pod])
		case "Event":
			e, err := decode[corev1.Event](js)
			if err != nil {
				return err
			}
			st.events = upsert(st.events, *e, metaKey[corev1.Event])
		case "Namespace":
			n, err := decode[corev1.Namespace](js)
			if err != nil {
				return err
			}
			st.namespaces = upsert(st.namespaces, *n, metaKey[corev1.Namespace])
		}
		return nil
	case gvk.Group == "events.k8s.io" && gvk.Version == "v1" && gvk.Kind == "Event":
		e, err := decode[eventsv1.Event](js)
		if err != nil {
			return err
		}
		st.events = upsert(st.events, eventFromEventsV1(e), metaKey[corev1.Event])
		return nil
	case gvk.Group == "batch" && gvk.Kind == "Job":
		if gvk.Version != "v1" {
			return nil
		}
		// Decode typed first so that a malformed Job is reported.
		if _, err := decode[batchv1.Job](js); err != nil {
			return err
		}
		return st.addJob(js)
	case gvk.Group == kueueGroup && gvk.Version == "v1beta2":
		return st.addKueue(js, gvk.Kind)
	case gvk.Group == kueueGroup && gvk.Version == "v1beta1":
		return st.addKueueV1beta1(js, gvk.Kind)
	}
	if k, ok := lookupGroupKind(gvk.GroupKind()); ok && k.Kind != KindWorkload && k.Kind != "Pod" {
		return st.addJob(js)
	}
	return nil // a kind the diagnosis does not use
}

// addJob keeps a job of any supported kind as an unstructured object, after
// checking that its metadata has the right shape.
func (st *store) addJob(js []byte) error {
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(js, &meta); err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return err
	}
	key := func(o **unstructured.Unstructured) string {
		return (*o).GroupVersionKind().GroupKind().String() + "/" + (*o).GetNamespace() + "/" + (*o).GetName()
	}
	st.jobs = upsert(st.jobs, u, key)
	return nil
}

func (st *store) addKueue(js []byte, kind string) error {
	switch kind {
	case "Workload":
		v, err := decode[kueue.Workload](js)
		if err != nil {
			return err
		}
		st.workloads = upsert(st.workloads, *v, metaKey[kueue.Workload])
	case "LocalQueue":
		v, err := decode[kueue.LocalQueue](js)
		if err != nil {
			return err
		}
		st.localQueues = upsert(st.localQueues, *v, metaKey[kueue.LocalQueue])
	case "ClusterQueue":
		v, err := decode[kueue.ClusterQueue](js)
		if err != nil {
			return err
		}
		st.clusterQueues = upsert(st.clusterQueues, *v, metaKey[kueue.ClusterQueue])
	case "Cohort":
		v, err := decode[kueue.Cohort](js)
		if err != nil {
			return err
		}
		st.cohorts = upsert(st.cohorts, *v, metaKey[kueue.Cohort])
	case "ResourceFlavor":
		v, err := decode[kueue.ResourceFlavor](js)
		if err != nil {
			return err
		}
		st.flavors = upsert(st.flavors, *v, metaKey[kueue.ResourceFlavor])
	case "AdmissionCheck":
		v, err := decode[kueue.AdmissionCheck](js)
		if err != nil {
			return err
		}
		st.checks = upsert(st.checks, *v, metaKey[kueue.AdmissionCheck])
	case "WorkloadPriorityClass":
		v, err := decode[kueue.WorkloadPriorityClass](js)
		if err != nil {
			return err
		}
		st.priorityClasses = upsert(st.priorityClasses, *v, metaKey[kueue.WorkloadPriorityClass])
	}
	return nil
}

func (st *store) addKueueV1beta1(js []byte, kind string) error {
	switch kind {
	case "Workload":
		v, err := decodeConvert(js, workloadFromV1beta1)
		if err != nil {
			return err
		}
		st.workloads = upsert(st.workloads, *v, metaKey[kueue.Workload])
	case "LocalQueue":
		v, err := decodeConvert(js, localQueueFromV1beta1)
		if err != nil {
			return err
		}
		st.localQueues = upsert(st.localQueues, *v, metaKey[kueue.LocalQueue])
	case "ClusterQueue":
		v, err := decodeConvert(js, clusterQueueFromV1beta1)
		if err != nil {
			return err
		}
		st.clusterQueues = upsert(st.clusterQueues, *v, metaKey[kueue.ClusterQueue])
	case "Cohort":
		v, err := decodeConvert(js, cohortFromV1beta1)
		if err != nil {
			return err
		}
		st.cohorts = upsert(st.cohorts, *v, metaKey[kueue.Cohort])
	case "ResourceFlavor":
		v, err := decodeConvert(js, flavorFromV1beta1)
		if err != nil {
			return err
		}
		st.flavors = upsert(st.flavors, *v, metaKey[kueue.ResourceFlavor])
	case "AdmissionCheck":
		v, err := decodeConvert(js, admissionCheckFromV1beta1)
		if err != nil {
			return err
		}
		st.checks = upsert(st.checks, *v, metaKey[kueue.AdmissionCheck])
	case "WorkloadPriorityClass":
		v, err := decodeConvert(js, priorityClassFromV1beta1)
		if err != nil {
			return err
		}
		st.priorityClasses = upsert(st.priorityClasses, *v, metaKey[kueue.WorkloadPriorityClass])
	}
	return nil
}

// eventFromEventsV1 maps an events.k8s.io/v1 Event onto the core v1 shape.
func eventFromEventsV1(e *eventsv1.Event) corev1.Event {
	out := corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Type:                e.Type,
		Source:              corev1.EventSource{Component: e.DeprecatedSource.Component, Host: e.DeprecatedSource.Host},
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	out.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
		if out.Count < e.Series.Count {
			out.Count = e.Series.Count
		}
	}
	return out
}
