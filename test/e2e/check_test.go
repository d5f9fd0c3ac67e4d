package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// checkNS is the test's namespace (unique per run: a namespace of an
// earlier run may still be terminating); the ClusterQueue, flavor and
// RuntimeClass carry the same name.
var checkNS = fmt.Sprintf("e2e-check-%d", time.Now().Unix()%100000)

// checkManifests are raw manifests, as a user writes them (no defaults
// filled in), one per kind the sandbox runs that check builds pod sets
// for. Containers without requests get the namespace's LimitRange
// defaults; pod sets that name RuntimeClass e2e-kata get its
// overhead.
var checkManifests = map[string]string{
	"Job": `apiVersion: batch/v1
kind: Job
metadata:
  name: job
  annotations: {kueue.x-k8s.io/job-min-parallelism: "1"}
spec:
  parallelism: 3
  completions: 2
  template:
    spec:
      runtimeClassName: e2e-kata
      restartPolicy: Never
      initContainers: [{name: setup, image: busybox, resources: {requests: {cpu: "2"}, limits: {cpu: "2"}}}]
      containers:
      - {name: main, image: busybox, resources: {limits: {cpu: "1", memory: 1Gi}}}
      - {name: side, image: busybox}
`,
	"JobSet": `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: jobset}
spec:
  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: d, image: busybox}]}}}}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        template: {spec: {restartPolicy: Never, containers: [{name: w, image: busybox, resources: {requests: {cpu: 500m}}}]}}
`,
	"RayCluster": `apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: raycluster}
spec:
  headGroupSpec:
    rayStartParams: {}
    template: {spec: {containers: [{name: head, image: rayproject/ray, resources: {requests: {cpu: "1"}}}]}}
  workerGroupSpecs:
  - groupName: GPU-workers
    replicas: 2
    numOfHosts: 2
    rayStartParams: {}
    template: {spec: {containers: [{name: w, image: rayproject/ray}]}}
  - groupName: default-replicas
    rayStartParams: {}
    template: {spec: {containers: [{name: w, image: rayproject/ray}]}}
`,
	"RayJob": `apiVersion: ray.io/v1
kind: RayJob
metadata: {name: rayjob}
spec:
  entrypoint: python -c 'print(1)'
  shutdownAfterJobFinishes: true
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template: {spec: {containers: [{name: head, image: rayproject/ray}]}}
    workerGroupSpecs:
    - groupName: small
      replicas: 1
      rayStartParams: {}
      template: {spec: {containers: [{name: w, image: rayproject/ray, resources: {requests: {cpu: 250m}}}]}}
`,
	"PyTorchJob": `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pytorchjob}
spec:
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: busybox}]}}}
    Worker: {replicas: 3, template: {spec: {runtimeClassName: e2e-kata, containers: [{name: pytorch, image: busybox, resources: {requests: {cpu: "1"}}}]}}}
`,
	"TFJob": `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tfjob}
spec:
  tfReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: tensorflow, image: busybox}]}}}
    PS: {template: {spec: {containers: [{name: tensorflow, image: busybox}]}}}
`,
	"XGBoostJob": `apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata: {name: xgboostjob}
spec:
  xgbReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: xgboost, image: busybox}]}}}
    Worker: {replicas: 2, template: {spec: {containers: [{name: xgboost, image: busybox}]}}}
`,
	"PaddleJob": `apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata: {name: paddlejob}
spec:
  paddleReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: paddle, image: busybox}]}}}
`,
	"JAXJob": `apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jaxjob}
spec:
  jaxReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {containers: [{name: jax, image: busybox}]}}}
`,
	"MPIJob": `apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpijob}
spec:
  mpiReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: l, image: busybox}]}}}
    Worker: {replicas: 2, template: {spec: {containers: [{name: w, image: busybox, resources: {requests: {cpu: "1"}}}]}}}
`,
	"LeaderWorkerSet": `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  rolloutStrategy: {type: RollingUpdate}
  leaderWorkerTemplate:
    size: 3
    leaderTemplate: {spec: {containers: [{name: leader, image: busybox, resources: {requests: {cpu: "1"}}}]}}
    workerTemplate: {spec: {containers: [{name: worker, image: busybox}]}}
`,
	"StatefulSet": `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  serviceName: sts
  selector: {matchLabels: {app: e2e-sts}}
  template:
    metadata: {labels: {app: e2e-sts}}
    spec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: 300m}}}]}
`,
	"Deployment": `apiVersion: apps/v1
kind: Deployment
metadata: {name: deploy}
spec:
  replicas: 2
  selector: {matchLabels: {app: e2e-deploy}}
  template:
    metadata: {labels: {app: e2e-deploy}}
    spec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: 300m}}}]}
`,
	"Pod": `apiVersion: v1
kind: Pod
metadata: {name: pod}
spec:
  runtimeClassName: e2e-kata
  restartPolicy: Never
  containers: [{name: main, image: busybox, resources: {requests: {cpu: 300m}}}]
`,
}

// TestCheckPodSetsEqualKueue holds the pod sets `kueuebot check` builds
// for a raw manifest, read as alice, equal to the Workload the real Kueue
// creates for the same manifest once admin submits it: pod set names,
// counts and minimum counts, and the requests Kueue counts (its
// admission's resourceUsage, after the LimitRange's defaults and the
// RuntimeClass's overhead), for every kind the sandbox runs that check
// builds pod sets for. It also checks that check made no write.
func TestCheckPodSetsEqualKueue(t *testing.T) {
	sb := sandbox(t)
	setupCheckNamespace(t, sb)
	for _, k := range kinds.All() {
		switch k.Kind {
		case kinds.Workload, "TrainJob", "AppWrapper":
			continue // check refuses them with the reason (unit tests)
		}
		if _, ok := checkManifests[k.Kind]; !ok {
			t.Errorf("no manifest for kind %s", k.Kind)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	kq := kueueclient.NewForConfigOrDie(cfg)
	dir := t.TempDir()
	start := time.Now()
	for kind, manifest := range checkManifests {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			manifest = strings.Replace(manifest, "metadata: {name: ", "metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}, name: ", 1)
			manifest = strings.Replace(manifest, "metadata:\n  name: ", "metadata:\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n  name: ", 1)
			file := filepath.Join(dir, strings.ToLower(kind)+".yaml")
			if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := checkAs(t, sb, "alice", file)
			if len(rep.Queues) != 1 || rep.Queues[0].Fit != diagnose.FitAdmittedNow {
				t.Errorf("answers %+v, want user-queue AdmittedNow", rep.Queues)
			}
			wl := submitAndWait(t, dyn, kq, kind, manifest)
			want := []shape{}
			for _, ps := range wl.Spec.PodSets {
				want = append(want, shape{string(ps.Name), ps.Count, ps.MinCount})
			}
			got := []shape{}
			for _, ps := range rep.PodSets {
				got = append(got, shape{ps.Name, ps.Count, ps.MinCount})
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("pod sets (-Kueue +check):\n%s", d)
			}
			usage := map[string]map[corev1.ResourceName]int64{}
			for _, a := range wl.Status.Admission.PodSetAssignments {
				usage[string(a.Name)] = kueueUnits(a.ResourceUsage)
			}
			for _, ps := range rep.PodSets {
				if d := cmp.Diff(usage[ps.Name], kueueUnits(ps.Total)); d != "" {
					t.Errorf("pod set %s requests (-Kueue +check):\n%s", ps.Name, d)
				}
			}
		})
	}
	// A request above the LimitRange's default limit: check says never,
	// and the real Kueue refuses the Workload for the same reason.
	t.Run("request above its default limit", func(t *testing.T) {
		t.Parallel()
		manifest := `apiVersion: batch/v1
kind: Job
metadata:
  name: too-much
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, resources: {requests: {cpu: "5"}}}]
`
		file := filepath.Join(dir, "too-much.yaml")
		if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		rep := checkAs(t, sb, "alice", file)
		if len(rep.Queues) != 1 || rep.Queues[0].Fit != diagnose.FitNever || rep.Queues[0].Verdict.Cause != diagnose.CauseInvalidResources ||
			!strings.Contains(rep.Queues[0].Detail, "container main requests more cpu than its limit") {
			t.Fatalf("answers %+v, want Never/InvalidResources naming container main", rep.Queues)
		}
		k, _ := kinds.ByKind("Job")
		var m map[string]any
		if err := yaml.Unmarshal([]byte(manifest), &m); err != nil {
			t.Fatal(err)
		}
		obj, err := dyn.Resource(k.Resource).Namespace(checkNS).Create(t.Context(), &unstructured.Unstructured{Object: m}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			wls, err := kq.KueueV1beta2().Workloads(checkNS).List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, wl := range wls.Items {
				for _, o := range wl.OwnerReferences {
					for _, c := range wl.Status.Conditions {
						if o.UID == obj.GetUID() && c.Type == kueue.WorkloadQuotaReserved && strings.Contains(c.Message, "requests must not exceed its limits") {
							return
						}
					}
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("Kueue did not refuse the Workload for requests above limits within 60s")
			}
			time.Sleep(300 * time.Millisecond)
		}
	})
	t.Cleanup(func() {
		// After the parallel subtests, before the namespace goes.
		time.Sleep(time.Second) // the audit batch
		for _, ev := range auditEventsOf(t, filepath.Join(sb, "audit.log"), "alice", start) {
			if ev.Verb != "get" && ev.Verb != "list" && ev.Verb != "watch" {
				t.Errorf("check wrote as alice: %s %s", ev.Verb, ev.RequestURI)
			}
		}
	})
}

type shape struct {
	Name     string
	Count    int32
	MinCount *int32
}

func kueueUnits(rl corev1.ResourceList) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for r, q := range rl {
		if v := resources.ResourceValue(r, q); v != 0 && r != corev1.ResourcePods {
			out[r] = v
		}
	}
	return out
}

// checkAs runs `kueuebot check -f file -o json` with user's kubeconfig.
func checkAs(t *testing.T, sb, user, file string) diagnose.CheckReport {
	t.Helper()
	bin := kueuebot(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "check", "-f", file, "-n", checkNS, "--kubeconfig", filepath.Join(sb, "kubeconfig-"+user), "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kueuebot check -f %s: %v\n%s", file, err, stderr.String())
	}
	var r diagnose.CheckReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
	}
	if len(r.Gaps) > 0 || len(r.Adjustments.UnknownRuntimeClasses) > 0 {
		t.Errorf("gaps %+v, unknown RuntimeClasses %v", r.Gaps, r.Adjustments.UnknownRuntimeClasses)
	}
	return r
}

// submitAndWait creates the manifest as admin and returns its Workload
// once Kueue admitted it.
func submitAndWait(t *testing.T, dyn dynamic.Interface, kq kueueclient.Interface, kind, manifest string) *kueue.Workload {
	t.Helper()
	k, _ := kinds.ByKind(kind)
	var m map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &m); err != nil {
		t.Fatal(err)
	}
	obj, err := dyn.Resource(k.Resource).Namespace(checkNS).Create(t.Context(), &unstructured.Unstructured{Object: m}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", kind, err)
	}
	t.Cleanup(func() {
		bg := metav1.DeletePropagationBackground
		_ = dyn.Resource(k.Resource).Namespace(checkNS).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg})
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		wls, err := kq.KueueV1beta2().Workloads(checkNS).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range wls.Items {
			wl := &wls.Items[i]
			for _, o := range wl.OwnerReferences {
				if ownedBy(o, obj) && wl.Status.Admission != nil {
					return wl
				}
			}
		}
		if time.Now().After(deadline) {
			var states []string
			for _, wl := range wls.Items {
				for _, o := range wl.OwnerReferences {
					if ownedBy(o, obj) {
						for _, c := range wl.Status.Conditions {
							states = append(states, c.Type+"="+string(c.Status)+" "+c.Reason+": "+c.Message)
						}
					}
				}
			}
			t.Fatalf("no admitted Workload for %s/%s after 60s; its Workload's conditions: %q", kind, obj.GetName(), states)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// ownedBy reports whether a Workload's owner o is obj, or, for a
// Deployment (whose pods are each a Workload), one of obj's pods (named
// <deployment>-<pod-template-hash>-<suffix>; the namespace holds no other).
func ownedBy(o metav1.OwnerReference, obj *unstructured.Unstructured) bool {
	if obj.GetKind() == "Deployment" {
		return o.Kind == "Pod" && strings.HasPrefix(o.Name, obj.GetName()+"-")
	}
	return o.UID == obj.GetUID()
}

// setupCheckNamespace makes namespace e2e-check with a LimitRange that
// defaults cpu and memory, a LocalQueue on a ClusterQueue with room for
// every manifest, RuntimeClass e2e-kata with a pod overhead, and
// alice as a batch user there who may read the quota objects and
// RuntimeClasses.
func setupCheckNamespace(t *testing.T, sb string) {
	t.Helper()
	cs := adminClient(t, sb)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	kq := kueueclient.NewForConfigOrDie(cfg)
	ctx := t.Context()
	bg := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: checkNS}}, metav1.CreateOptions{})
	must(err)
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(bg, checkNS, metav1.DeleteOptions{}) })
	_, err = cs.CoreV1().LimitRanges(checkNS).Create(ctx, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi")},
	}}}}, metav1.CreateOptions{})
	must(err)
	_, err = cs.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "e2e-kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("150m"), corev1.ResourceMemory: resource.MustParse("32Mi")}}}, metav1.CreateOptions{})
	must(err)
	t.Cleanup(func() { _ = cs.NodeV1().RuntimeClasses().Delete(bg, "e2e-kata", metav1.DeleteOptions{}) })
	_, err = kq.KueueV1beta2().ResourceFlavors().Create(ctx, &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: checkNS}}, metav1.CreateOptions{})
	must(err)
	t.Cleanup(func() { _ = kq.KueueV1beta2().ResourceFlavors().Delete(bg, checkNS, metav1.DeleteOptions{}) })
	_, err = kq.KueueV1beta2().ClusterQueues().Create(ctx, &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: checkNS}, Spec: kueue.ClusterQueueSpec{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: checkNS}},
		ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory},
			Flavors: []kueue.FlavorQuotas{{Name: kueue.ResourceFlavorReference(checkNS), Resources: []kueue.ResourceQuota{
				{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("1000")}, {Name: corev1.ResourceMemory, NominalQuota: resource.MustParse("1Ti")}}}}}},
	}}, metav1.CreateOptions{})
	must(err)
	t.Cleanup(func() { _ = kq.KueueV1beta2().ClusterQueues().Delete(bg, checkNS, metav1.DeleteOptions{}) })
	_, err = kq.KueueV1beta2().LocalQueues(checkNS).Create(ctx, &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "user-queue"}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(checkNS)}}, metav1.CreateOptions{})
	must(err)
	for _, role := range []string{"kueue-batch-user-role", "view"} {
		_, err = cs.RbacV1().RoleBindings(checkNS).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-" + role},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "alice"}}}, metav1.CreateOptions{})
		must(err)
	}
	_, err = cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-check-runtimeclass-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"node.k8s.io"}, Resources: []string{"runtimeclasses"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{})
	must(err)
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-check-alice-runtimeclass-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "e2e-check-runtimeclass-reader"},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "alice"}}}, metav1.CreateOptions{})
	must(err)
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(bg, "e2e-check-alice-runtimeclass-reader", metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(bg, "e2e-check-runtimeclass-reader", metav1.DeleteOptions{})
	})
	grantQuotaViewer(t, sb, "alice")
	waitAllowed(t, sb, "alice", authorizationv1.ResourceAttributes{Verb: "get", Group: "node.k8s.io", Resource: "runtimeclasses"})
	waitAllowed(t, sb, "alice", authorizationv1.ResourceAttributes{Verb: "list", Resource: "limitranges", Namespace: checkNS})
}

// auditEventsOf returns the completed requests user made through
// kueuebot's CLI (user agent kueuebot/...) since.
func auditEventsOf(t *testing.T, path, user string, since time.Time) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, line := range auditLines(t, path, "kueuebot/") {
		var ev auditEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Stage == "ResponseComplete" && ev.User.Username == user && strings.HasPrefix(ev.UserAgent, "kueuebot/") && !ev.RequestReceivedTimestamp.Before(since) {
			out = append(out, ev)
		}
	}
	if len(out) == 0 {
		t.Errorf("no request of %s through kueuebot in the audit log since %s", user, since)
	}
	return out
}
