package prefs

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestStore(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	s := &Store{Client: cs, Namespace: "kueuebot"}
	if _, ok, err := s.Lang(ctx, "U1"); err != nil || ok {
		t.Fatalf("empty store: ok %v, %v", ok, err)
	}
	if err := s.SetLang(ctx, "U1", i18n.Japanese, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLang(ctx, "U2", i18n.French, true); err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps("kueuebot").Get(ctx, rbac.LangConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["U1"] != "ja" || cm.Data["U2"] != "fr" {
		t.Fatalf("ConfigMap data %v, want U1: ja, U2: fr", cm.Data)
	}
	// A new Store (a restarted bot) reads them back.
	s2 := &Store{Client: cs, Namespace: "kueuebot"}
	if l, ok, err := s2.Lang(ctx, "U1"); err != nil || !ok || l != i18n.Japanese {
		t.Fatalf("after restart: %v %v %v, want ja", l, ok, err)
	}
	if err := s2.SetLang(ctx, "U1", 0, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s2.Lang(ctx, "U1"); ok {
		t.Fatal("U1's language was not forgotten")
	}
}

// A write that conflicts (another replica wrote first) re-reads and keeps
// both changes.
func TestStoreConflict(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	a := &Store{Client: cs, Namespace: "ns"}
	b := &Store{Client: cs, Namespace: "ns"}
	if err := a.SetLang(ctx, "U1", i18n.Chinese, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Lang(ctx, "U1"); err != nil { // b caches this version
		t.Fatal(err)
	}
	if err := a.SetLang(ctx, "U2", i18n.French, true); err != nil {
		t.Fatal(err)
	}
	// The fake API server keeps no resourceVersions: the first update of
	// b's stale copy is answered as the real one would.
	conflicts := 0
	cs.PrependReactor("update", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, rbac.LangConfigMapName, nil)
	})
	if err := b.SetLang(ctx, "U3", i18n.Japanese, true); err != nil {
		t.Fatal(err)
	}
	if conflicts == 0 {
		t.Fatal("the stale write did not conflict; the test proves nothing")
	}
	cm, _ := cs.CoreV1().ConfigMaps("ns").Get(ctx, rbac.LangConfigMapName, metav1.GetOptions{})
	if cm.Data["U1"] != "zh" || cm.Data["U2"] != "fr" || cm.Data["U3"] != "ja" {
		t.Fatalf("data %v: a change was lost", cm.Data)
	}
}

func TestStoreFull(t *testing.T) {
	ctx := context.Background()
	s := &Store{Client: fake.NewClientset(), Namespace: "ns"}
	if err := s.SetLang(ctx, "U0", i18n.French, true); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < MaxUsers; i++ {
		s.cm.Data["X"+string(rune('a'+i%26))+string(rune(i))] = "en"
	}
	if err := s.SetLang(ctx, "Unew", i18n.French, true); !errors.Is(err, ErrFull) {
		t.Fatalf("past MaxUsers: %v, want ErrFull", err)
	}
	if err := s.SetLang(ctx, "U0", i18n.Japanese, true); err != nil {
		t.Fatalf("changing a known user's language when full: %v", err)
	}
}
