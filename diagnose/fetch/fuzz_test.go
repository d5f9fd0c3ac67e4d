package fetch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
)

// FuzzLoadYAML feeds arbitrary bytes to the file loader and the selection
// that follows: it may fail, but never panic.
func FuzzLoadYAML(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	nested, _ := filepath.Glob("testdata/*/*/*.json")
	for _, p := range append(append(seeds, more...), nested...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, null, {kind: Pod}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := NewStore()
		if err := st.AddData("fuzz.yaml", data); err != nil {
			return
		}
		for _, target := range []diagnose.Target{
			{Kind: "Job", Namespace: "team-a", Name: "train"},
			{Kind: "Workload", Namespace: "team-a", Name: "job-train-a24cf"},
			{Kind: "Pod", Namespace: "team-a", Name: "p"},
		} {
			if _, err := st.Snapshot(target, time.Time{}); err != nil {
				t.Fatalf("collect on loaded objects failed: %v", err)
			}
		}
	})
}
