package fetch

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The owner index follows updates and deletes, for owners of one Workload
// and of several.
func TestOwnerIndexFollowsUpdatesAndDeletes(t *testing.T) {
	st := NewStore()
	owned := func(uid string) []string {
		var names []string
		for _, wl := range byIndex[kueue.Workload](st, gkWorkload, indexOwner, uid) {
			names = append(names, wl.Name)
		}
		return names
	}
	check := func(uid string, want ...string) {
		t.Helper()
		if got := owned(uid); !slices.Equal(got, want) {
			t.Errorf("owner %s: %v, want %v", uid, got, want)
		}
	}
	a, b, c := podSetWorkload(1), podSetWorkload(2), podSetWorkload(3)
	b.OwnerReferences[0].UID, b.Labels[JobUIDLabel] = a.OwnerReferences[0].UID, string(a.OwnerReferences[0].UID)
	c.Labels[JobUIDLabel] = "label-uid" // indexed under both
	if err := st.AddObjects(a, b, c); err != nil {
		t.Fatal(err)
	}
	ua, uc := string(a.OwnerReferences[0].UID), string(c.OwnerReferences[0].UID)
	check(ua, a.Name, b.Name)
	check(uc, c.Name)
	check("label-uid", c.Name)

	// b moves to c's owner: a's owner keeps a alone.
	b.OwnerReferences[0].UID, b.Labels[JobUIDLabel] = types.UID(uc), uc
	if err := st.AddObjects(b); err != nil {
		t.Fatal(err)
	}
	check(ua, a.Name)
	check(uc, b.Name, c.Name)
	// c loses its label: only its owner reference indexes it.
	delete(c.Labels, JobUIDLabel)
	if err := st.AddObjects(c); err != nil {
		t.Fatal(err)
	}
	check("label-uid")
	check(uc, b.Name, c.Name)
	// Deletes, through the informer handler.
	h := st.EventHandler(func(err error) { t.Error(err) })
	h.OnDelete(b)
	check(uc, c.Name)
	h.OnDelete(c)
	h.OnDelete(c) // twice: nothing left to delete
	check(uc)
	h.OnDelete(a)
	check(ua)
	if n := st.Len(); n != 0 {
		t.Errorf("%d objects left", n)
	}
	o := st.lookup(gkWorkload).owners
	if len(o.one) != 0 || len(o.many) != 0 {
		t.Errorf("owner index keeps %v and %v", o.one, o.many)
	}
}
