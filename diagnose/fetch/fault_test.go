package fetch

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	visibility "sigs.k8s.io/kueue/apis/visibility/v1beta2"
	"sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/faultproxy"
)

// apiServer is a minimal API server over HTTP: it answers GETs of the paths
// it holds with their JSON (query ignored) and 404 Status otherwise.
func apiServer(t *testing.T, objects map[string]runtime.Object) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		obj, ok := objects[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"%s not found"}`, r.URL.Path)
			return
		}
		_ = json.NewEncoder(w).Encode(obj)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func typed[T runtime.Object](obj T, apiVersion, kind string) T {
	tm := metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
	obj.GetObjectKind().SetGroupVersionKind(tm.GroupVersionKind())
	return obj
}

const (
	kueuePath = "/apis/kueue.x-k8s.io/v1beta2"
	kueueNS   = kueuePath + "/namespaces/" + testNS
	corePath  = "/api/v1/namespaces/" + testNS
)

func faultCQ() *kueue.ClusterQueue {
	cq := testCQ("", "f")
	cq.Status.FlavorsReservation = []kueue.FlavorUsage{{Name: "f", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU, Total: resource.MustParse("2")}}}}
	return typed(cq, "kueue.x-k8s.io/v1beta2", "ClusterQueue")
}

func faultPodSets() []kueue.PodSet {
	return []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}},
	}}}}}}
}

// pendingCluster is a Job waiting for quota (3 cpu asked, 2 of 4 in use).
func pendingCluster() map[string]runtime.Object {
	wl := testWorkload(wlName, metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending",
		Message: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 1 more needed"})
	wl.Spec.PodSets = faultPodSets()
	return map[string]runtime.Object{
		"/apis/batch/v1/namespaces/" + testNS + "/jobs/" + jobName: typed(testJob(), "batch/v1", "Job"),
		kueuePath:                        typed(kueueV1beta2Resources.DeepCopy(), "v1", "APIResourceList"),
		kueueNS + "/workloads/" + wlName: typed(wl, "kueue.x-k8s.io/v1beta2", "Workload"),
		kueueNS + "/localqueues/lq":      typed(testLQ(), "kueue.x-k8s.io/v1beta2", "LocalQueue"),
		kueueNS + "/localqueues":         typed(&kueue.LocalQueueList{Items: []kueue.LocalQueue{*testLQ()}}, "kueue.x-k8s.io/v1beta2", "LocalQueueList"),
		kueuePath + "/clusterqueues/cq":  faultCQ(),
		kueuePath + "/resourceflavors/f": typed(testRF("f"), "kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
		"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/" + testNS + "/localqueues/lq/pendingworkloads": typed(
			&visibility.PendingWorkloadsSummary{Items: []visibility.PendingWorkload{pw(wlName, 0, 0, 0)}}, "visibility.kueue.x-k8s.io/v1beta2", "PendingWorkloadsSummary"),
	}
}

// admittedCluster is a Job whose one Pod runs.
func admittedCluster() map[string]runtime.Object {
	objs := pendingCluster()
	job := testJob()
	job.Spec.Suspend = ptr.To(false)
	objs["/apis/batch/v1/namespaces/"+testNS+"/jobs/"+jobName] = typed(job, "batch/v1", "Job")
	wl := testWorkload(wlName, condQuota, condAdmit)
	wl.Spec.PodSets = faultPodSets()
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{
		Name: "main", Count: ptr.To[int32](1), Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f"},
		ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")},
	}}}
	objs[kueueNS+"/workloads/"+wlName] = typed(wl, "kueue.x-k8s.io/v1beta2", "Workload")
	pod := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: jobName + "-abcde", Namespace: testNS, UID: "pod-1"},
		Spec:       corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	objs[corePath+"/pods"] = typed(&corev1.PodList{Items: []corev1.Pod{pod}}, "v1", "PodList")
	objs[corePath+"/events"] = typed(&corev1.EventList{}, "v1", "EventList")
	return objs
}

// httpFetcher reads through the API at host with real client-go clients.
func httpFetcher(t *testing.T, host string, timeout time.Duration) *Fetcher {
	t.Helper()
	cfg := &rest.Config{Host: host, QPS: -1}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kq, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &Fetcher{Kube: kube, Kueue: kq, Dynamic: dyn, Timeout: timeout, Now: func() time.Time { return testNow }}
}

var faultTarget = diagnose.Target{Kind: "Job", Namespace: testNS, Name: jobName}

// TestFaultEveryRequest fails each request of a pending and of an admitted
// job's diagnosis in turn, in every way, and checks that a fault is never
// reported as a fact about the job: the answer is either a *ReadError or
// the same verdict as without the fault.
func TestFaultEveryRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster func() map[string]runtime.Object
		want    diagnose.Code
	}{
		{"pending", pendingCluster, diagnose.CodeWaitingForQuota},
		{"admitted", admittedCluster, diagnose.CodeRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			backend := apiServer(t, tc.cluster())
			u, _ := url.Parse(backend.URL)
			count := faultproxy.New(u, http.DefaultTransport)
			defer count.Close()
			count.Arm(0, "")
			base, err := httpFetcher(t, count.URL, 5*time.Second).Fetch(t.Context(), faultTarget)
			if err != nil {
				t.Fatal(err)
			}
			baseReport := diagnose.Analyze(base)
			if r := baseReport; r.Verdict.Code != tc.want || len(r.Gaps) != 0 {
				t.Fatalf("without faults: verdict %s/%s, gaps %v; want %s and none", r.Verdict.Code, r.Verdict.Cause, r.Gaps, tc.want)
			}
			n := count.Count()
			t.Logf("%s: %d requests: %v", tc.name, n, count.Requests())
			for i := 1; i <= n; i++ {
				for _, f := range faultproxy.All() {
					t.Run(fmt.Sprintf("%d-%s", i, f), func(t *testing.T) {
						t.Parallel()
						p := faultproxy.New(u, http.DefaultTransport)
						defer p.Close()
						p.RetryAfter, p.MaxHang = "0", 10*time.Second
						timeout := 3 * time.Second // room for client-go's 1 s retry after a reset
						if f == faultproxy.Hang {
							timeout = time.Second // every request before the hang must still fit in it under -race
						}
						p.Arm(i, f)
						s, err := httpFetcher(t, p.URL, timeout).Fetch(t.Context(), faultTarget)
						if !p.Hit() {
							t.Fatalf("request %d never came (requests %v)", i, p.Requests())
						}
						checkFaultOutcome(t, f, baseReport.Verdict, s, err)
					})
				}
			}
		})
	}
}

func checkFaultOutcome(t *testing.T, f faultproxy.Fault, base diagnose.Verdict, s *diagnose.Snapshot, err error) {
	t.Helper()
	if err != nil {
		var re *ReadError
		if !errors.As(err, &re) {
			t.Fatalf("error %v (%T), want a *ReadError", err, err)
		}
		msg := re.UserMessage()
		if !strings.Contains(msg, "did not judge your job") || !strings.Contains(msg, "when I read ") {
			t.Errorf("UserMessage %q does not say what failed and that the job was not judged", msg)
		}
		if f == faultproxy.TooManyRequests || f == faultproxy.Reset {
			t.Errorf("%s is retried by client-go, but the fetch failed: %v", f, err)
		}
		return
	}
	r := diagnose.Analyze(s)
	if r.Verdict.Code != base.Code {
		t.Errorf("verdict %s/%s (%s), want %s; gaps %v", r.Verdict.Code, r.Verdict.Cause, r.Verdict.Headline, base.Code, r.Gaps)
	}
	for _, g := range r.Gaps {
		if g.Reason == diagnose.GapNotFound || g.Reason == diagnose.GapForbidden {
			t.Errorf("a %s became gap %+v", f, g)
		}
	}
	// A read that failed without a gap (one that only adds a suggestion)
	// must leave the verdict as it was.
	if len(r.Gaps) == 0 && !reflect.DeepEqual(r.Verdict, base) {
		t.Errorf("a %s changed the verdict without a gap:\n got %+v\nwant %+v", f, r.Verdict, base)
	}
	if f == faultproxy.TooManyRequests || f == faultproxy.Reset {
		// Retried by client-go: nothing may be missing.
		if len(r.Gaps) != 0 {
			t.Errorf("%s is retried, but gaps %v", f, r.Gaps)
		}
	}
}

// TestFaultClasses checks how each kind of failure of the first read is
// classified and told.
func TestFaultClasses(t *testing.T) {
	answer := func(code int, body string, header ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	tests := []struct {
		name    string
		handler http.Handler
		tls     bool
		closed  bool
		class   FaultClass
		status  int
		says    string
	}{
		{name: "500", handler: answer(500, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"etcd is down"}`),
			class: FaultServerError, status: 500, says: "answered with a server error (HTTP 500 Internal Server Error) when I read the Job team-a/train"},
		{name: "503 plain text", handler: answer(503, "no healthy upstream"), class: FaultServerError, status: 503, says: "HTTP 503 Service Unavailable"},
		{name: "429 after retries", handler: answer(429, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`, "Retry-After", "0"),
			class: FaultThrottled, status: 429, says: "kept asking me to slow down"},
		{name: "401", handler: answer(401, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}`),
			class: FaultUnauthorized, status: 401, says: "did not accept the credentials"},
		{name: "400", handler: answer(400, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400}`), class: FaultRejected, status: 400, says: "refused my request (HTTP 400 Bad Request)"},
		{name: "malformed body", handler: answer(200, `{"kind":"Job","apiVersion":"batch/v1","metadata":{"name":`), class: FaultMalformed, says: "sent an answer I could not read"},
		{name: "hang", handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }), class: FaultTimeout, says: "did not answer in 300ms"},
		{name: "reset", handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.(*net.TCPConn).SetLinger(0)
			_ = conn.Close()
		}), class: FaultConnectionLost, says: "dropped the connection"},
		{name: "tls", handler: answer(200, "{}"), tls: true, class: FaultTLS, says: "TLS handshake"},
		{name: "refused", closed: true, class: FaultUnreachable, says: "could not be reached"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var host string
			switch {
			case tc.closed:
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				host = "http://" + l.Addr().String()
				_ = l.Close()
			case tc.tls:
				srv := httptest.NewUnstartedServer(tc.handler)
				srv.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
				srv.StartTLS()
				defer srv.Close()
				host = srv.URL // the client does not trust its certificate
			default:
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				host = srv.URL
			}
			// Room for a TLS handshake on a loaded machine (-race); a hang
			// must outlast it, which the hang case checks with a short one.
			timeout := 5 * time.Second
			switch tc.name {
			case "hang":
				timeout = 300 * time.Millisecond
			case "reset":
				timeout = 1500 * time.Millisecond // client-go retries a reset after 1 s
			}
			_, err := httpFetcher(t, host, timeout).Fetch(t.Context(), faultTarget)
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("Fetch error = %v (%T), want a *ReadError", err, err)
			}
			if re.Class != tc.class || re.Status != tc.status || re.Kind != "Job" || re.Name != jobName {
				t.Errorf("ReadError = %+v, want %s/%d of Job %s", re, tc.class, tc.status, jobName)
			}
			if msg := re.UserMessage(); !strings.Contains(msg, tc.says) || !strings.Contains(msg, "I did not judge your job") {
				t.Errorf("UserMessage = %q, want it to say %q and that the job was not judged", msg, tc.says)
			}
		})
	}
}
