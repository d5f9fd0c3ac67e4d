package fetch

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose"
)

// podSetWorkload is a Workload with one pod set as Kueue makes them for a
// Job, under its own name, job and UIDs.
func podSetWorkload(i int) *kueue.Workload {
	wl := testWorkload(fmt.Sprintf("wl-%d", i))
	uid := types.UID(fmt.Sprintf("job-uid-%d", i))
	wl.UID = types.UID(fmt.Sprintf("wl-uid-%d", i))
	wl.Labels = map[string]string{JobUIDLabel: string(uid)}
	wl.OwnerReferences[0].UID, wl.OwnerReferences[0].Name = uid, fmt.Sprintf("job-%d", i)
	wl.Spec.PodSets = []kueue.PodSet{{
		Name: "main", Count: 2,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "c", Image: "img:1",
				Env:       []corev1.EnvVar{{Name: "SLIMMED", Value: "away"}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			}},
		}},
	}}
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: "main", Count: ptr.To[int32](2),
		Flavors:       map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "a"},
		ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
	}}}
	return wl
}

func storedWorkload(t *testing.T, st *Store, name string) *kueue.Workload {
	t.Helper()
	wl := get[kueue.Workload](st, gkWorkload, testNS, name)
	if wl == nil {
		t.Fatalf("%s not stored", name)
	}
	return wl
}

func sharesPodSets(a, b *kueue.Workload) bool {
	return len(a.Spec.PodSets) > 0 && len(b.Spec.PodSets) > 0 && &a.Spec.PodSets[0] == &b.Spec.PodSets[0]
}

// fill sets every exported field reachable from v (to a few levels) to a
// value other than its zero value, marked by seed.
func fill(v reflect.Value, seed string, depth int) {
	if depth > 5 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(seed)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(seed)) + 7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(len(seed)) + 7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), seed, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), seed, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, seed, depth+1)
		fill(e, seed, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[resource.Quantity]() {
			v.Set(reflect.ValueOf(resource.MustParse("3")))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed, depth+1)
			}
		}
	}
}

// Two Workloads made from one template share one pod set array; a pod set
// that differs from it in any field slimming keeps never does.
func TestInternedPodSetsDifferInNoField(t *testing.T) {
	base := podSetWorkload(0)
	type variant struct {
		field string
		set   func(ps *kueue.PodSet)
	}
	var variants []variant
	addFields := func(prefix string, typ reflect.Type, at func(ps *kueue.PodSet) reflect.Value) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			variants = append(variants, variant{prefix + f.Name, func(ps *kueue.PodSet) {
				fill(at(ps).Field(i), "variant-"+f.Name, 0)
			}})
		}
	}
	addFields("", reflect.TypeFor[kueue.PodSet](), func(ps *kueue.PodSet) reflect.Value { return reflect.ValueOf(ps).Elem() })
	addFields("Template.", reflect.TypeFor[corev1.PodTemplateSpec]().Field(0).Type, func(ps *kueue.PodSet) reflect.Value {
		return reflect.ValueOf(&ps.Template.ObjectMeta).Elem()
	})
	addFields("Template.Spec.", reflect.TypeFor[corev1.PodSpec](), func(ps *kueue.PodSet) reflect.Value {
		return reflect.ValueOf(&ps.Template.Spec).Elem()
	})
	addFields("Template.Spec.Containers[0].", reflect.TypeFor[corev1.Container](), func(ps *kueue.PodSet) reflect.Value {
		return reflect.ValueOf(&ps.Template.Spec.Containers[0]).Elem()
	})
	variants = append(variants,
		variant{"count 3", func(ps *kueue.PodSet) { ps.Count = 3 }},
		variant{"minCount 1", func(ps *kueue.PodSet) { ps.MinCount = ptr.To[int32](1) }},
		variant{"cpu 2", func(ps *kueue.PodSet) {
			ps.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
		}},
		variant{"a second container", func(ps *kueue.PodSet) {
			ps.Template.Spec.Containers = append(ps.Template.Spec.Containers, ps.Template.Spec.Containers[0])
		}},
		variant{"label value", func(ps *kueue.PodSet) { ps.Template.Labels = map[string]string{"app": "other"} }},
		variant{"toleration effect", func(ps *kueue.PodSet) {
			ps.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
		}},
	)

	kept := 0
	for n, v := range variants {
		t.Run(v.field, func(t *testing.T) {
			other := podSetWorkload(2*n + 2)
			v.set(&other.Spec.PodSets[0])
			slimmed := other.DeepCopy()
			slimWorkload(slimmed)
			slimBase := base.DeepCopy()
			slimWorkload(slimBase)
			if reflect.DeepEqual(slimmed.Spec.PodSets, slimBase.Spec.PodSets) {
				return // a field slimming drops
			}
			kept++
			twin := podSetWorkload(2*n + 3)
			v.set(&twin.Spec.PodSets[0])
			st := NewStore()
			if err := st.AddObjects(base, other, twin); err != nil {
				t.Fatal(err)
			}
			b, o, tw := storedWorkload(t, st, base.Name), storedWorkload(t, st, other.Name), storedWorkload(t, st, twin.Name)
			if sharesPodSets(b, o) {
				t.Fatalf("pod sets that differ in %s are shared", v.field)
			}
			if diff := cmp.Diff(slimmed.Spec.PodSets, o.Spec.PodSets); diff != "" {
				t.Errorf("stored pod sets differ from the slimmed ones (-want +got):\n%s", diff)
			}
			if !sharesPodSets(o, tw) {
				t.Errorf("two equal pod sets with %s are not shared", v.field)
			}
		})
	}
	if kept < 25 {
		t.Errorf("only %d of %d variants survive slimming", kept, len(variants))
	}
}

func TestEqualWorkloadsShareTheirParts(t *testing.T) {
	st := NewStore()
	a, b := podSetWorkload(1), podSetWorkload(2)
	if err := st.AddObjects(a); err != nil {
		t.Fatal(err)
	}
	if err := st.AddObjects(b); err != nil { // another batch
		t.Fatal(err)
	}
	sa, sb := storedWorkload(t, st, a.Name), storedWorkload(t, st, b.Name)
	if !sharesPodSets(sa, sb) {
		t.Error("equal pod sets are not shared")
	}
	if sa.Status.Admission != sb.Status.Admission {
		t.Error("equal admissions are not shared")
	}
	if env := sa.Spec.PodSets[0].Template.Spec.Containers[0].Env; env != nil {
		t.Errorf("container env kept: %v", env)
	}
	// What is each Workload's own stays its own.
	if sa.Name != a.Name || sa.UID != a.UID || sa.OwnerReferences[0].UID != a.OwnerReferences[0].UID {
		t.Errorf("stored %s/%s owner %s, want %s/%s owner %s", sa.Name, sa.UID, sa.OwnerReferences[0].UID, a.Name, a.UID, a.OwnerReferences[0].UID)
	}
	// The job-uid label repeats the owner's UID: dropped, and the owner
	// index still finds the Workload by it.
	if sa.Labels != nil {
		t.Errorf("labels %v kept", sa.Labels)
	}
	got := byIndex[kueue.Workload](st, gkWorkload, indexOwner, string(a.OwnerReferences[0].UID))
	if len(got) != 1 || got[0] != sa {
		t.Errorf("owner index gives %v", got)
	}
	// A job-uid label that names another object is kept.
	c := podSetWorkload(3)
	c.Labels[JobUIDLabel] = "elsewhere"
	if err := st.AddObjects(c); err != nil {
		t.Fatal(err)
	}
	if sc := storedWorkload(t, st, c.Name); sc.Labels[JobUIDLabel] != "elsewhere" {
		t.Errorf("labels %v, want the job-uid label kept", sc.Labels)
	}
	if got := byIndex[kueue.Workload](st, gkWorkload, indexOwner, "elsewhere"); len(got) != 1 || got[0].Name != c.Name {
		t.Errorf("owner index by label gives %v", got)
	}
	// Differing admissions are not shared.
	d := podSetWorkload(4)
	d.Status.Admission.PodSetAssignments[0].Count = ptr.To[int32](1)
	if err := st.AddObjects(d); err != nil {
		t.Fatal(err)
	}
	if sd := storedWorkload(t, st, d.Name); sd.Status.Admission == sa.Status.Admission || *sd.Status.Admission.PodSetAssignments[0].Count != 1 {
		t.Error("admissions that differ in count are shared")
	}
}

// A Snapshot of a store that does not share hands out copies: changing
// them, down to the shared pod sets' maps, changes neither the store nor
// another Workload.
func TestSnapshotCopiesAreIndependent(t *testing.T) {
	st := NewStore()
	a, b := podSetWorkload(1), podSetWorkload(2)
	a.Spec.PodSets[0].Template.Labels = map[string]string{"app": "train"}
	b.Spec.PodSets[0].Template.Labels = map[string]string{"app": "train"}
	if err := st.AddObjects(a, b, testLQ(), testCQ("", "a"), testRF("a")); err != nil {
		t.Fatal(err)
	}
	sb := storedWorkload(t, st, b.Name)
	if !sharesPodSets(storedWorkload(t, st, a.Name), sb) {
		t.Fatal("equal pod sets are not shared")
	}
	before := sb.DeepCopy()
	s, err := st.Snapshot(diagnose.Target{Kind: KindWorkload, Namespace: testNS, Name: a.Name}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload == nil || len(s.Workload.Spec.PodSets) != 1 {
		t.Fatalf("snapshot workload %v", s.Workload)
	}
	ps := &s.Workload.Spec.PodSets[0]
	ps.Count = 99
	ps.Template.Labels["app"] = "changed"
	ps.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("50")
	ps.Template.Spec.Containers[0].Image = "changed"
	s.Workload.Status.Admission.PodSetAssignments[0].Flavors[corev1.ResourceCPU] = "changed"
	s.Workload.Status.Admission.PodSetAssignments[0].ResourceUsage[corev1.ResourceCPU] = resource.MustParse("50")
	s.Workload.Status.Conditions = append(s.Workload.Status.Conditions, s.Workload.Status.Conditions...)
	s.Workload.OwnerReferences[0].Name = "changed"
	if diff := cmp.Diff(before, storedWorkload(t, st, b.Name)); diff != "" {
		t.Errorf("changing a snapshot changed another stored Workload:\n%s", diff)
	}
	again, err := st.Snapshot(diagnose.Target{Kind: KindWorkload, Namespace: testNS, Name: a.Name}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Workload.Spec.PodSets[0]; got.Count != 2 || got.Template.Labels["app"] != "train" || got.Template.Spec.Containers[0].Image != "img:1" {
		t.Errorf("changing a snapshot changed the store: %+v", got)
	}
}

// Nothing a diagnosis does writes into the store's objects, which
// Classify's Snapshots share and whose parts Workloads share with each
// other: every recorded scenario is diagnosed both ways and the store
// compared with a copy made before.
func TestDiagnosisLeavesTheStoreUnchanged(t *testing.T) {
	st := NewStore()
	if err := st.AddFS(examples.FS); err != nil {
		t.Fatal(err)
	}
	if err := st.AddFiles("testdata/dump"); err != nil {
		t.Fatal(err)
	}
	copyAll := func() map[string][]runtime.Object {
		out := map[string][]runtime.Object{}
		st.mu.RLock()
		defer st.mu.RUnlock()
		for gk, ks := range st.indexers {
			for _, o := range ks.List() {
				out[gk.String()] = append(out[gk.String()], o.(runtime.Object).DeepCopyObject())
			}
		}
		return out
	}
	before := copyAll()
	subjects := st.Subjects()
	if len(subjects) < 30 {
		t.Fatalf("only %d subjects", len(subjects))
	}
	if err := st.Classify(subjects, testNow, ClassifyOptions{}, func(int, *diagnose.Report) {}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range subjects {
		s, err := st.Snapshot(sub.Target, testNow)
		if err != nil {
			t.Fatal(err)
		}
		diagnose.Analyze(s)
	}
	sortObjs := cmp.Transformer("byKey", func(objs []runtime.Object) map[string]runtime.Object {
		m := map[string]runtime.Object{}
		for _, o := range objs {
			k, _ := cache.MetaNamespaceKeyFunc(o)
			m[k] = o
		}
		return m
	})
	if diff := cmp.Diff(before, copyAll(), sortObjs, cmp.AllowUnexported(jobRecord{})); diff != "" {
		t.Errorf("diagnosing changed the store:\n%s", diff)
	}
}
