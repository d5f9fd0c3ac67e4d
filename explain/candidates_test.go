package explain

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kueuebot/kueuebot/rbac"
)

// namingReader is a fakeReader that also lists job names.
type namingReader struct {
	fakeReader
	names map[string]bool
	err   error
	calls int
}

func (n *namingReader) JobNames(context.Context, rbac.Identity, []string) (map[string]bool, error) {
	n.calls++
	return n.names, n.err
}

func TestResolveCandidates(t *testing.T) {
	nss := rbac.Namespaces{Names: []string{"team-a"}}
	tests := []struct {
		name      string
		q         Question
		names     map[string]bool
		err       error
		wantName  string
		wantLists int
	}{
		{name: "certain name asks nothing", q: Question{Name: "train-7"}, wantName: "train-7"},
		{name: "one candidate asks nothing", q: Question{Name: "train-7", Candidates: []string{"train-7"}}, wantName: "train-7"},
		{name: "the existing one wins", q: Question{Name: "waiting", Candidates: []string{"waiting", "train-7"}}, names: map[string]bool{"train-7": true}, wantName: "train-7", wantLists: 1},
		{name: "best guess first among existing", q: Question{Name: "a", Candidates: []string{"a", "b"}}, names: map[string]bool{"a": true, "b": true}, wantName: "a", wantLists: 1},
		{name: "none exists: best guess", q: Question{Name: "a", Candidates: []string{"a", "b"}}, names: map[string]bool{}, wantName: "a", wantLists: 1},
		{name: "list fails: best guess", q: Question{Name: "a", Candidates: []string{"a", "b"}}, err: errors.New("forbidden"), wantName: "a", wantLists: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &namingReader{fakeReader: fakeReader{nss: nss}, names: tt.names, err: tt.err}
			res, err := (&Explainer{Reader: r}).Explain(t.Context(), rbac.Identity{User: "u"}, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Question.Name != tt.wantName || r.reads[0].Name != tt.wantName {
				t.Errorf("answered %q (read %q), want %q", res.Question.Name, r.reads[0].Name, tt.wantName)
			}
			if r.calls != tt.wantLists {
				t.Errorf("%d name lists, want %d", r.calls, tt.wantLists)
			}
		})
	}
}

func TestListJobNames(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		items := map[string]string{
			"/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads": `{"metadata":{"name":"job-train-7-abcde","namespace":"team-a","ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"train-7","uid":"u"}]}},{"metadata":{"name":"prebuilt","namespace":"team-a"}}`,
			"/apis/kueue.x-k8s.io/v1beta1/namespaces/old/workloads":    `{"metadata":{"name":"job-legacy-12345","namespace":"old","ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"legacy","uid":"v"}]}}`,
		}
		list, ok := items[r.URL.Path]
		switch {
		case r.URL.Path == "/apis/kueue.x-k8s.io/v1beta2/namespaces/secret/workloads":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
		case r.URL.Path == "/apis/kueue.x-k8s.io/v1beta1/namespaces/old2/workloads":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[]}`)
		case !ok:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[%s]}`, list)
		}
	}))
	defer srv.Close()
	client, err := metadata.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	names, err := listJobNames(t.Context(), client, []string{"team-a", "secret", "old", "old2"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"train-7": true, "job-train-7-abcde": true, "prebuilt": true, "legacy": true, "job-legacy-12345": true}
	if !maps.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	wantPaths := []string{
		"/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads",
		"/apis/kueue.x-k8s.io/v1beta2/namespaces/secret/workloads",
		"/apis/kueue.x-k8s.io/v1beta2/namespaces/old/workloads",
		"/apis/kueue.x-k8s.io/v1beta1/namespaces/old/workloads",
		"/apis/kueue.x-k8s.io/v1beta1/namespaces/old2/workloads",
	}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("requests %v, want one LIST per namespace (+1 for a v1beta1-only server): %v", paths, wantPaths)
	}
}

// TestCandidatesOnDump: "why is waiting sample-job stuck" style questions
// settle on the job that exists among the caller's.
func TestCandidatesOnDump(t *testing.T) {
	e := &Explainer{Reader: &DumpReader{Dump: loadExamples(t)}}
	id := rbac.Identity{User: "alice", Namespaces: []string{"sc-sample-job"}}
	res, err := e.Explain(t.Context(), id, Question{Name: "resnet-50", Candidates: []string{"resnet-50", "sample-job"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Question.Name != "sample-job" || res.Report.Target.Name != "sample-job" {
		t.Errorf("answered about %q (%q), want sample-job", res.Question.Name, res.Report.Target.Name)
	}
}
