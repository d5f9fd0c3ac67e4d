package fetch

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueinformers "sigs.k8s.io/kueue/client-go/informers/externalversions"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/gencluster"
)

func TestRankPending(t *testing.T) {
	at := func(m int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC)) }
	wl := func(name, lq string, prio *int32, created metav1.Time) *kueue.Workload {
		return &kueue.Workload{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), CreationTimestamp: created},
			Spec:       kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(lq), Priority: prio},
		}
	}
	wls := []*kueue.Workload{
		wl("b-same-time", "lq", nil, at(1)),
		wl("a-same-time", "lq", nil, at(1)),
		wl("high", "lq2", ptr.To[int32](5), at(9)),
		wl("old", "lq", ptr.To[int32](0), at(0)),
	}
	r := newRanking(wls)
	type row struct {
		Name     string
		InCQ     int32
		InLQ     int32
		Priority int32
	}
	var rows []row
	for _, q := range r.items {
		rows = append(rows, row{q.Name, q.PositionInClusterQueue, q.inLocalQueue, q.Priority})
	}
	want := []row{{"high", 0, 0, 5}, {"old", 1, 0, 0}, {"a-same-time", 2, 1, 0}, {"b-same-time", 3, 2, 0}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	pos, ahead := r.position(wls[0], true) // b-same-time
	if diff := cmp.Diff(&diagnose.Position{InLocalQueue: 2, InClusterQueue: 3}, pos); diff != "" {
		t.Errorf("position (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"old", "a-same-time"}, names2(ahead, func(q *diagnose.QueuedWorkload) string { return q.Name })); diff != "" {
		t.Errorf("ahead (-want +got):\n%s", diff)
	}
	// The ranking agrees with positionIn over the same items.
	wantPos, wantAhead := positionIn(r.items, wls[0])
	if diff := cmp.Diff(wantPos, pos); diff != "" {
		t.Errorf("position differs from positionIn (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantAhead, ahead); diff != "" {
		t.Errorf("ahead differs from positionIn (-want +got):\n%s", diff)
	}
	if pos, ahead := r.position(wl("not-queued", "lq", nil, at(0)), true); pos != nil || ahead != nil {
		t.Errorf("position of a Workload not ranked = %v, %v; want nil, nil", pos, ahead)
	}
}

// contents lists every object of the store as "Kind key" -> object.
func contents(s *Store) map[string]runtime.Object {
	out := map[string]runtime.Object{}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for gk, idx := range s.indexers {
		for _, key := range idx.ListKeys() {
			obj, _, _ := idx.GetByKey(key)
			out[gk.String()+" "+key] = obj.(runtime.Object)
		}
	}
	return out
}

// loadBothWays loads data with Lists cut into items and decoded in
// parallel, and decoded whole.
func loadBothWays(t testing.TB, data []byte) (split, whole *Store, splitErr, wholeErr error) {
	t.Helper()
	old := splitListMin
	defer func() { splitListMin = old }()
	splitListMin = 0
	split = NewStore()
	splitErr = split.AddData("dump.yaml", data)
	splitListMin = math.MaxInt
	whole = NewStore()
	wholeErr = whole.AddData("dump.yaml", data)
	return split, whole, splitErr, wholeErr
}

// yamlLists are List documents of many shapes: cutting must give what
// a whole parse gives, or fall back to it.
var yamlLists = map[string]string{
	"kubectl": `apiVersion: v1
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: a
    labels: {team: a}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata:
    name: lq
    namespace: a
  spec:
    clusterQueue: cq
kind: List
metadata:
  resourceVersion: ""
`,
	"indented items, comments, blank lines, CRLF": "apiVersion: v1\r\nkind: List\r\n# a comment\r\nitems:\r\n  - apiVersion: v1\r\n    kind: Namespace\r\n\r\n    # inside\r\n    metadata: {name: a}\r\n# between\r\n  - apiVersion: v1\r\n    kind: Namespace\r\n    metadata: {name: b}\r\n",
	"block scalar holding list-like lines": `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
    namespace: a
    annotations:
      note: |
        - not an item
        items:
  spec:
    containers: [{name: c, image: i}]
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
`,
	"quoted header value across the items": `apiVersion: v1
kind: List
note: "starts here
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: hidden}
ends here"
`,
	"anchor used across items": `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: &m
    name: a
- apiVersion: v1
  kind: Namespace
  metadata: *m
`,
	"quoted item value continued at column 0": `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: "a
- b"
`,
	"flow items": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- {apiVersion: v1, kind: Namespace, metadata: {name: b}}
`,
	"empty items":               "apiVersion: v1\nkind: List\nitems: []\n",
	"items key twice":           "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: b}}\n",
	"not a list":                "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nitems:\n- x\n",
	"list of ignored":           "apiVersion: apps/v1\nkind: DaemonSetList\nitems:\n- {metadata: {name: d}, spec: {replicas: nope}}\n",
	"typed list, kinds omitted": "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueueList\nitems:\n- metadata: {name: lq, namespace: a}\n  spec: {clusterQueue: cq}\n",
	"item error": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec: {containers: 3}
`,
	"broken YAML in an item": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: [a\n",
	"tab indentation":        "apiVersion: v1\nkind: List\nitems:\n-\tapiVersion: v1\n",
	"items not a sequence":   "apiVersion: v1\nkind: List\nitems:\n  a: b\n",
	"v1beta1 items":          "apiVersion: v1\nkind: List\nitems:\n- apiVersion: kueue.x-k8s.io/v1beta1\n  kind: ClusterQueue\n  metadata: {name: cq}\n  spec: {cohort: co}\n",
}

func TestListCutMatchesWholeParse(t *testing.T) {
	for name, doc := range yamlLists {
		t.Run(name, func(t *testing.T) {
			split, whole, splitErr, wholeErr := loadBothWays(t, []byte(doc))
			if fmt.Sprint(splitErr) != fmt.Sprint(wholeErr) {
				t.Fatalf("errors differ: shortcut %v, whole %v", splitErr, wholeErr)
			}
			if diff := cmp.Diff(contents(whole), contents(split)); diff != "" {
				t.Errorf("objects differ (-whole +shortcut):\n%s", diff)
			}
		})
	}
}

func FuzzListCut(f *testing.F) {
	for _, doc := range yamlLists {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		split, whole, splitErr, wholeErr := loadBothWays(t, data)
		if fmt.Sprint(splitErr) != fmt.Sprint(wholeErr) {
			t.Fatalf("errors differ: shortcut %v, whole %v", splitErr, wholeErr)
		}
		if diff := cmp.Diff(contents(whole), contents(split)); diff != "" {
			t.Fatalf("objects differ (-whole +shortcut):\n%s", diff)
		}
	})
}

func TestLoadLists(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string
	}{
		{
			name: "JSON kind: List",
			data: `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}},` +
				`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"a"}}]}`,
			want: []string{"Namespace a", "Workload.kueue.x-k8s.io a/w"},
		},
		{
			name: "typed JSON list from the API, items without kind",
			data: `{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"WorkloadList","metadata":{},"items":[{"metadata":{"name":"w","namespace":"a"}}]}`,
			want: []string{"Workload.kueue.x-k8s.io a/w"},
		},
		{
			name: "v1beta1 typed list",
			data: `{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueueList","items":[{"metadata":{"name":"cq"},"spec":{"cohort":"co"}}]}`,
			want: []string{"ClusterQueue.kueue.x-k8s.io cq"},
		},
		{
			name: "list of a kind not read",
			data: `{"apiVersion":"apps/v1","kind":"DaemonSetList","items":[{"metadata":{"name":"d"},"spec":{"replicas":"x"}}]}`,
		},
		{
			name: "nested lists",
			data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PodList\n  items:\n  - metadata: {name: p, namespace: a}\n",
			want: []string{"Pod a/p"},
		},
	}
	for _, tc := range tests {
		for _, min := range []int{0, math.MaxInt} {
			t.Run(fmt.Sprintf("%s/split=%v", tc.name, min == 0), func(t *testing.T) {
				old := splitListMin
				defer func() { splitListMin = old }()
				splitListMin = min
				st := NewStore()
				if err := st.AddData("dump.json", []byte(tc.data)); err != nil {
					t.Fatal(err)
				}
				got := slices.Sorted(func(yield func(string) bool) {
					for k := range contents(st) {
						if !yield(k) {
							return
						}
					}
				})
				if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("objects (-want +got):\n%s", diff)
				}
			})
		}
	}
	st := NewStore()
	if err := st.AddData("cq.json", []byte(tests[2].data)); err != nil {
		t.Fatal(err)
	}
	if cq := st.ClusterQueues(); len(cq) != 1 || cq[0].Spec.CohortName != "co" || cq[0].APIVersion != kueue.GroupVersion.String() {
		t.Errorf("v1beta1 ClusterQueue converted to %+v", cq)
	}
}

func TestLoadErrorsNameItems(t *testing.T) {
	old := splitListMin
	defer func() { splitListMin = old }()
	splitListMin = 0
	data := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}},` +
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a"},"spec":{"containers":3}}]}`
	st := NewStore()
	err := st.AddData("dump.json", []byte(data))
	if err == nil || !strings.Contains(err.Error(), "dump.json: document 1: item 2: Pod a/p: ") {
		t.Errorf("error = %v, want it to name document 1, item 2", err)
	}
	if st.Len() != 0 {
		t.Errorf("%d objects added despite the error", st.Len())
	}
}

// smallCluster is a generated cluster with jobs, in a few namespaces.
func smallCluster() *gencluster.Cluster {
	return gencluster.Generate(gencluster.Spec{Workloads: 120, Namespaces: 6, ClusterQueues: 3, CohortSize: 2, Jobs: true, Now: testNow})
}

// snapshotsOf builds the Snapshot of every Workload's target.
func snapshotsOf(t *testing.T, st *Store) map[diagnose.Target]*diagnose.Snapshot {
	t.Helper()
	out := map[diagnose.Target]*diagnose.Snapshot{}
	for _, wl := range st.Workloads() {
		target := TargetOf(wl, st)
		s, err := st.Snapshot(target, testNow)
		if err != nil {
			t.Fatal(err)
		}
		out[target] = s
	}
	return out
}

// The store is one thing whether filled from files, objects in hand, LISTs
// or informers: the same objects give the same Snapshots.
func TestStoreFillersAgree(t *testing.T) {
	c := smallCluster()
	var yaml bytes.Buffer
	if err := c.WriteYAMLList(&yaml); err != nil {
		t.Fatal(err)
	}
	fromFile := NewStore()
	if err := fromFile.AddData("dump.yaml", yaml.Bytes()); err != nil {
		t.Fatal(err)
	}
	want := snapshotsOf(t, fromFile)
	if len(want) != 120 {
		t.Fatalf("%d snapshots from the file, want 120", len(want))
	}
	jobTargets := 0
	for target := range want {
		if target.Kind == "Job" {
			jobTargets++
		}
	}
	if jobTargets != 120 {
		t.Errorf("%d of 120 Workloads targeted through their Job", jobTargets)
	}

	fromObjects := NewStore()
	if err := fromObjects.AddObjects(c.Objects()...); err != nil {
		t.Fatal(err)
	}

	e := clusterEnv(c)
	fromLists := NewStore()
	if _, err := fromLists.ListInto(t.Context(), e.clients(), ListOptions{Jobs: true, Pods: true, Events: true}); err != nil {
		t.Fatal(err)
	}

	fromInformers := NewStore()
	kf := informers.NewSharedInformerFactory(e.kube, 0)
	qf := kueueinformers.NewSharedInformerFactory(e.kueue, 0)
	for _, inf := range []cache.SharedIndexInformer{
		kf.Batch().V1().Jobs().Informer(), kf.Core().V1().Namespaces().Informer(),
		qf.Kueue().V1beta2().Workloads().Informer(), qf.Kueue().V1beta2().LocalQueues().Informer(),
		qf.Kueue().V1beta2().ClusterQueues().Informer(), qf.Kueue().V1beta2().ResourceFlavors().Informer(),
		qf.Kueue().V1beta2().Cohorts().Informer(),
	} {
		if _, err := inf.AddEventHandler(fromInformers.EventHandler(func(err error) { t.Error(err) })); err != nil {
			t.Fatal(err)
		}
	}
	kf.Start(t.Context().Done())
	qf.Start(t.Context().Done())
	kf.WaitForCacheSync(t.Context().Done())
	qf.WaitForCacheSync(t.Context().Done())
	// Handlers run after the caches sync; wait until every object arrived.
	eventually(t, func() bool { return fromInformers.Len() == fromObjects.Len() })

	for name, st := range map[string]*Store{"objects": fromObjects, "lists": fromLists, "informers": fromInformers} {
		got := snapshotsOf(t, st)
		opts := snapshotOpts
		if name == "lists" {
			// ListInto reads Namespaces only for a namespaceSelector
			// that tests labels (TestListIntoNamespaces).
			opts = append(slices.Clip(opts), cmpopts.IgnoreFields(diagnose.Snapshot{}, "Namespace"))
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Errorf("%s: snapshots differ from the file's (-file +%s):\n%s", name, name, diff)
		}
	}

	// An informer's delete removes the object.
	wl := c.Workloads[0]
	if err := e.kueue.Tracker().Delete(kueue.GroupVersion.WithResource("workloads"), wl.Namespace, wl.Name); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return get[kueue.Workload](fromInformers, gkWorkload, wl.Namespace, wl.Name) == nil })
}

// eventually waits up to a minute for cond.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
	}
}

// clusterEnv is a fake cluster holding c.
func clusterEnv(c *gencluster.Cluster) *env {
	var kubeObjs, kueueObjs []runtime.Object
	for _, o := range c.Objects() {
		if o.GetObjectKind().GroupVersionKind().Group == kueue.GroupVersion.Group {
			kueueObjs = append(kueueObjs, o)
		} else {
			kubeObjs = append(kubeObjs, o)
		}
	}
	return newEnv(kubeObjs, kueueObjs, nil)
}

func (e *env) clients() Clients {
	return Clients{Kube: e.kube, Kueue: e.kueue, Dynamic: e.dyn}
}

// Slimming and interning Workloads (slim.go) changes no report: every
// recorded real-Kueue scenario diagnoses the same with and without.
func TestSlimmingKeepsVerdicts(t *testing.T) {
	load := func(slim bool) *Store {
		old := slimming
		defer func() { slimming = old }()
		slimming = slim
		st := NewStore()
		if err := st.AddFS(examples.FS); err != nil {
			t.Fatal(err)
		}
		if err := st.AddFiles("testdata/dump"); err != nil {
			t.Fatal(err)
		}
		return st
	}
	slim, full := load(true), load(false)
	subjects := full.Subjects()
	if len(subjects) < 30 {
		t.Fatalf("only %d subjects in the scenarios", len(subjects))
	}
	for _, sub := range subjects {
		a, err := slim.Snapshot(sub.Target, testNow)
		if err != nil {
			t.Fatal(err)
		}
		b, err := full.Snapshot(sub.Target, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(diagnose.Analyze(b), diagnose.Analyze(a)); diff != "" {
			t.Errorf("%v: report differs when slimmed (-full +slim):\n%s", sub.Target, diff)
		}
	}
}
