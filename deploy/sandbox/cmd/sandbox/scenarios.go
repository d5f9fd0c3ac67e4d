package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

type scenarioOptions struct {
	state, dir, out, only string
	settle                time.Duration
	// parallel is how many scenarios of one Kueue configuration run at once.
	parallel int
	// kueuebot and kubectl are the binaries remedy steps run (the diagnosis, then the command it
	// printed).
	kueuebot, kubectl string
	// up is how the sandbox was started: the MultiKueue scenarios start its worker from it
	// when it does not run (ensureWorker).
	up options
}

// scenarioFile is deploy/sandbox/scenarios/<name>/scenario.yaml. Without it, every other *.yaml
// of the directory (except expect.yaml) is applied in lexical order.
type scenarioFile struct {
	// Config names the Kueue configuration the scenario needs (kueueVariants; default "default").
	// The runner restarts Kueue with it for the group of scenarios that share it.
	Config string `json:"config,omitempty"`
	Steps  []step `json:"steps"`
}

type step struct {
	// Apply a manifest file of the scenario directory (server-side apply as admin).
	Apply string `json:"apply,omitempty"`
	// WaitFor blocks until the Workload of a Job has a condition (bounded by the settle time).
	WaitFor *waitFor `json:"waitFor,omitempty"`
	// Patch merge-patches one object (optionally a subresource). ${NOW} in the patch becomes an RFC 3339 time.
	Patch *patchStep `json:"patch,omitempty"`
	// Sleep, e.g. "1100ms", so creation timestamps (second precision) order workloads.
	Sleep string `json:"sleep,omitempty"`
	// Kubelet writes the status of Pods as a kubelet would (the sandbox has none): see kubelet.go.
	Kubelet *kubeletStep `json:"kubelet,omitempty"`
	// Remedy diagnoses the scenario's target with kueuebot, checks the verdict, and runs the
	// command of one remedy as whoever the remedy names: see remedy.go.
	Remedy *remedyStep `json:"remedy,omitempty"`
	// As applies the file as this test user (alice, bob, carol) instead of admin.
	As string `json:"as,omitempty"`
	// Delete deletes one object as admin, without waiting for it to go (a ClusterQueue that
	// Kueue's finalizer holds while it has admitted Workloads stays, with a deletionTimestamp).
	Delete *objectRef `json:"delete,omitempty"`
	// Cluster "worker" runs the step on the MultiKueue worker (worker.go) instead of the
	// manager; what a scenario applies there is dumped to <out>/worker/<name>.yaml.
	Cluster string `json:"cluster,omitempty"`
}

// objectRef names one object.
type objectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

type waitFor struct {
	Namespace string `json:"namespace"`
	// Kind and Name name the Workload's owner (Kind defaults to Job; Job is the older spelling of Name).
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Job       string `json:"job,omitempty"`
	Condition string `json:"condition"`
	Status    string `json:"status,omitempty"` // default "True"
	// Object, when set, is the object whose condition is waited for instead of a Workload's
	// (a LocalQueue Active: Kueue's queue manager knows it, so its webhook defaults the jobs
	// sent to it, e.g. MultiKueue's spec.managedBy).
	Object *objectRef `json:"object,omitempty"`
	// Timeout bounds this wait instead of the settle time (a requeue backoff longer than it).
	Timeout string `json:"timeout,omitempty"`
	// Optional: a wait that times out only warns; the scenario's expected verdict decides.
	// For a state Kueue reaches by more than one path (Evicted is not always reset).
	Optional bool `json:"optional,omitempty"`
}

func (w *waitFor) owner() (kind, name string) {
	kind, name = w.Kind, w.Name
	if kind == "" {
		kind = "Job"
	}
	if name == "" {
		name = w.Job
	}
	return kind, name
}

type patchStep struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	Subresource string `json:"subresource,omitempty"`
	// WorkloadOfJob: Kind/Name name the Workload's owner (a Job, JobSet, ...); the patch goes to
	// the Workload it owns.
	WorkloadOfJob bool           `json:"workloadOfJob,omitempty"`
	Merge         map[string]any `json:"merge"`
}

var (
	gvrWorkloads = gvr("kueue.x-k8s.io", "v1beta2", "workloads")
	// dumpNamespaced: kinds dumped from every scenario namespace, in this order. The job kinds of
	// the integrations are added when the scenario applies one (dumpKinds).
	dumpNamespaced = []dumpKind{
		{"LimitRange", gvr("", "v1", "limitranges")},
		{"LocalQueue", gvr("kueue.x-k8s.io", "v1beta2", "localqueues")},
		{"Job", gvr("batch", "v1", "jobs")},
		{"Workload", gvrWorkloads},
		{"Pod", gvr("", "v1", "pods")},
		{"Event", gvr("", "v1", "events")},
	}
	// dumpCluster: cluster-scoped kinds dumped when the scenario created them (by name).
	dumpCluster = []dumpKind{
		{"ResourceFlavor", gvr("kueue.x-k8s.io", "v1beta2", "resourceflavors")},
		{"Cohort", gvr("kueue.x-k8s.io", "v1beta2", "cohorts")},
		{"ClusterQueue", gvr("kueue.x-k8s.io", "v1beta2", "clusterqueues")},
		{"AdmissionCheck", gvr("kueue.x-k8s.io", "v1beta2", "admissionchecks")},
		{"WorkloadPriorityClass", gvr("kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses")},
		{"ClusterTrainingRuntime", gvr("trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes")},
		// What names the object that blocks (diagnose/fetch objects.go).
		{"Topology", gvr("kueue.x-k8s.io", "v1beta2", "topologies")},
		{"MultiKueueConfig", gvr("kueue.x-k8s.io", "v1beta2", "multikueueconfigs")},
		{"MultiKueueCluster", gvr("kueue.x-k8s.io", "v1beta2", "multikueueclusters")},
		{"RuntimeClass", gvr("node.k8s.io", "v1", "runtimeclasses")},
		{"Node", gvr("", "v1", "nodes")},
	}
)

type dumpKind struct {
	kind string
	res  schema.GroupVersionResource
}

// dumpKinds: the namespaced kinds to dump for a scenario: the fixed ones, with the kinds of
// the integrations it applies (JobSet, RayJob, ...) and their children (a JobSet's Jobs are
// batch Jobs, dumped anyway) inserted before Job.
func dumpKinds(c *cluster, all []*unstructured.Unstructured) ([]dumpKind, error) {
	fixed := map[string]bool{}
	for _, d := range dumpNamespaced {
		fixed[d.kind] = true
	}
	seen := map[schema.GroupVersionKind]bool{}
	var extra []dumpKind
	for _, o := range all {
		gvk := o.GroupVersionKind()
		if o.GetNamespace() == "" || fixed[gvk.Kind] || seen[gvk] || gvk.Group == "rbac.authorization.k8s.io" || gvk.Kind == "Secret" {
			continue
		}
		seen[gvk] = true
		_, m, err := c.resource(o)
		if err != nil {
			return nil, err
		}
		extra = append(extra, dumpKind{gvk.Kind, m.Resource})
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].kind < extra[j].kind })
	var out []dumpKind
	for _, d := range dumpNamespaced {
		if d.kind == "Job" {
			out = append(out, extra...)
		}
		out = append(out, d)
	}
	return out, nil
}

func runScenarios(o scenarioOptions) error {
	if len(running(o.state)) == 0 {
		return fmt.Errorf("sandbox is not running; run `make sandbox-up` first")
	}
	c, err := newCluster(filepath.Join(o.state, "kubeconfig"))
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return err
	}
	only := map[string]bool{}
	for _, n := range strings.Split(o.only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			only[n] = true
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	// Group the scenarios by the Kueue configuration they need: the variants first (Kueue is
	// restarted with each; their objects are removed after the dump, so that nothing they left
	// changes once Kueue runs with another configuration), the default configuration last.
	groups := map[string][]string{}
	files := map[string]scenarioFile{}
	missing := maps.Clone(only)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sf, err := loadScenario(filepath.Join(o.dir, e.Name()))
		if err != nil {
			return fmt.Errorf("scenario %s: %w", e.Name(), err)
		}
		files[e.Name()] = sf
		if len(only) > 0 && !only[e.Name()] {
			continue
		}
		delete(missing, e.Name())
		groups[sf.config()] = append(groups[sf.config()], e.Name())
	}
	if len(missing) > 0 {
		return fmt.Errorf("no such scenario: %s", strings.Join(sortedKeys(missing), ", "))
	}
	for _, names := range groups {
		for _, n := range names {
			if files[n].needsWorker() {
				if err := validWorkerSteps(n, files[n]); err != nil {
					return err
				}
				if err := ensureWorker(o.up); err != nil {
					return err
				}
			}
		}
	}
	var order []string
	for _, v := range variantNames()[1:] {
		if len(groups[v]) > 0 {
			order = append(order, v)
		}
	}
	if len(groups[defaultVariant]) > 0 {
		order = append(order, defaultVariant)
	}
	var failed []string
	for gi, variant := range order {
		if variant != defaultVariant {
			// What other scenarios left would change under this configuration (with
			// waitForPodsReady.blockAdmission, any admitted Workload without ready Pods holds
			// every admission): remove them first.
			for name, sf := range files {
				if sf.config() == variant {
					continue
				}
				if err := removeScenario(c, o, name, sf); err != nil {
					return fmt.Errorf("remove scenario %s before switching Kueue to %s: %w", name, variant, err)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err := switchKueue(ctx, o.state, variant)
		cancel()
		if err != nil {
			return err
		}
		failed = append(failed, runGroup(c, o, groups[variant], files)...)
		if gi < len(order)-1 {
			for _, name := range groups[variant] {
				if err := removeScenario(c, o, name, files[name]); err != nil {
					return fmt.Errorf("remove scenario %s before switching Kueue's configuration: %w", name, err)
				}
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("scenarios failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// runGroup runs the scenarios of one Kueue configuration, o.parallel at a
// time (they mostly wait on Kueue, and each has namespaces, queues and
// cluster-scoped objects of its own: TestScenarioNamesAreDisjoint), and
// returns the names of those that failed, in the group's order.
func runGroup(c *cluster, o scenarioOptions, names []string, files map[string]scenarioFile) []string {
	var (
		mu     sync.Mutex
		failed = map[string]bool{}
		wg     sync.WaitGroup
		sem    = make(chan struct{}, max(o.parallel, 1))
	)
	for _, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			err := runScenario(c, o, name, files[name])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fmt.Printf("%-28s FAILED after %.1fs: %v\n", name, time.Since(t0).Seconds(), err)
				failed[name] = true
				return
			}
			fmt.Printf("%-28s ok (%.1fs)\n", name, time.Since(t0).Seconds())
		})
	}
	wg.Wait()
	var out []string
	for _, name := range names {
		if failed[name] {
			out = append(out, name)
		}
	}
	return out
}

// needsWorker: the scenario has steps on the MultiKueue worker.
func (sf scenarioFile) needsWorker() bool {
	for _, s := range sf.Steps {
		if s.Cluster == roleWorker {
			return true
		}
	}
	return false
}

func (sf scenarioFile) config() string {
	if sf.Config == "" {
		return defaultVariant
	}
	return sf.Config
}

// loadScenario reads scenario.yaml, or makes the implicit one (apply every manifest in order).
func loadScenario(dir string) (scenarioFile, error) {
	var sf scenarioFile
	if b, err := os.ReadFile(filepath.Join(dir, "scenario.yaml")); err == nil {
		if err := yaml.UnmarshalStrict(b, &sf); err != nil {
			return sf, fmt.Errorf("scenario.yaml: %w", err)
		}
		if _, ok := kueueVariants[sf.config()]; !ok && sf.config() != defaultVariant {
			return sf, fmt.Errorf("scenario.yaml: unknown config %q (known: %s)", sf.Config, strings.Join(variantNames(), ", "))
		}
		for i, st := range sf.Steps {
			if st.Cluster != "" && st.Cluster != roleWorker {
				return sf, fmt.Errorf("scenario.yaml: step %d: unknown cluster %q (known: %s)", i+1, st.Cluster, roleWorker)
			}
		}
		return sf, nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	sort.Strings(files)
	for _, f := range files {
		if b := filepath.Base(f); b != "expect.yaml" && b != "scenario.yaml" {
			sf.Steps = append(sf.Steps, step{Apply: b})
		}
	}
	return sf, nil
}

// scenarioObjects are every object a scenario applies, and from them its namespaces and the
// names of its cluster-scoped objects by kind.
type scenarioObjects struct {
	all          []*unstructured.Unstructured
	namespaces   map[string]bool
	clusterNames map[string]map[string]bool
}

// readScenarioObjects reads what the scenario applies to one cluster ("" the manager, or
// roleWorker).
func readScenarioObjects(dir string, sf scenarioFile, cluster string) (scenarioObjects, error) {
	so := scenarioObjects{namespaces: map[string]bool{}, clusterNames: map[string]map[string]bool{}}
	for _, s := range sf.Steps {
		if s.Apply == "" || s.Cluster != cluster {
			continue
		}
		objs, err := decodeFile(filepath.Join(dir, s.Apply))
		if err != nil {
			return so, err
		}
		so.all = append(so.all, objs...)
	}
	for _, obj := range so.all {
		if obj.GetKind() == "Secret" {
			continue // never dumped, and its namespace (e.g. Kueue's, for a MultiKueue kubeconfig) is not the scenario's
		}
		if obj.GetKind() == "Namespace" {
			so.namespaces[obj.GetName()] = true
		} else if obj.GetNamespace() != "" {
			so.namespaces[obj.GetNamespace()] = true
		} else {
			if so.clusterNames[obj.GetKind()] == nil {
				so.clusterNames[obj.GetKind()] = map[string]bool{}
			}
			so.clusterNames[obj.GetKind()][obj.GetName()] = true
		}
	}
	return so, nil
}

func runScenario(c *cluster, o scenarioOptions, name string, sf scenarioFile) error {
	dir := filepath.Join(o.dir, name)
	so, err := readScenarioObjects(dir, sf, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.settle+3*time.Minute)
	defer cancel()
	if err := cleanup(ctx, c, so.all, so.namespaces); err != nil {
		return fmt.Errorf("cleanup of a previous run: %w", err)
	}
	sc := &scenarioRun{c: c, o: o, name: name, dir: dir}
	var wso scenarioObjects
	if sf.needsWorker() {
		if sc.worker, err = newCluster(filepath.Join(workerState(o.state), "kubeconfig")); err != nil {
			return err
		}
		if wso, err = readScenarioObjects(dir, sf, roleWorker); err != nil {
			return err
		}
		if err := cleanup(ctx, sc.worker, wso.all, wso.namespaces); err != nil {
			return fmt.Errorf("cleanup of a previous run on the worker: %w", err)
		}
	}
	for i, s := range sf.Steps {
		if err := sc.runStep(ctx, s); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	kinds, err := dumpKinds(c, so.all)
	if err != nil {
		return err
	}
	if stable := settle(ctx, c, kinds, so.namespaces, so.clusterNames, o.settle); !stable {
		fmt.Printf("%-28s warning: state still changing after %s; dumping anyway\n", name, o.settle)
	}
	if sc.worker != nil {
		wkinds, err := dumpKinds(sc.worker, wso.all)
		if err != nil {
			return err
		}
		if stable := settle(ctx, sc.worker, wkinds, wso.namespaces, wso.clusterNames, o.settle); !stable {
			fmt.Printf("%-28s warning: the worker's state still changing after %s; dumping anyway\n", name, o.settle)
		}
		wdump, err := dumpScenario(ctx, sc.worker, wkinds, wso.namespaces, wso.clusterNames)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(o.out, workerDir), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out, workerDir, name+".yaml"), append(dumpHeader(time.Now()), wdump...), 0o644); err != nil {
			return err
		}
	}
	dump, err := dumpScenario(ctx, c, kinds, so.namespaces, so.clusterNames)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, name+".yaml"), append(dumpHeader(time.Now()), dump...), 0o644); err != nil {
		return err
	}
	return sc.checkVerdict(ctx)
}

// removeScenario deletes what a scenario created (as a fresh run's cleanup would); a no-op when
// none of its namespaces exists.
func removeScenario(c *cluster, o scenarioOptions, name string, sf scenarioFile) error {
	so, err := readScenarioObjects(filepath.Join(o.dir, name), sf, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cleanup(ctx, c, so.all, so.namespaces); err != nil {
		return err
	}
	if !sf.needsWorker() || !workerRunning(o.state) {
		return nil
	}
	wso, err := readScenarioObjects(filepath.Join(o.dir, name), sf, roleWorker)
	if err != nil {
		return err
	}
	wc, err := newCluster(filepath.Join(workerState(o.state), "kubeconfig"))
	if err != nil {
		return err
	}
	return cleanup(ctx, wc, wso.all, wso.namespaces)
}

// scenarioRun is one scenario being applied.
type scenarioRun struct {
	c *cluster
	// worker is the MultiKueue worker's admin client, for scenarios with worker steps.
	worker *cluster
	o      scenarioOptions
	name   string
	dir    string
}

func (sc *scenarioRun) runStep(ctx context.Context, s step) error {
	c, bound, state := sc.c, sc.o.settle, sc.o.state
	if s.Cluster == roleWorker {
		c, state = sc.worker, workerState(sc.o.state)
	}
	switch {
	case s.Apply != "":
		objs, err := decodeFile(filepath.Join(sc.dir, s.Apply))
		if err != nil {
			return err
		}
		if s.As != "" {
			if c, err = newCluster(filepath.Join(state, "kubeconfig-"+s.As)); err != nil {
				return err
			}
		}
		actx, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		return c.applyAll(actx, objs)
	case s.Sleep != "":
		d, err := time.ParseDuration(s.Sleep)
		if err != nil {
			return err
		}
		time.Sleep(d)
		return nil
	case s.WaitFor != nil:
		w := s.WaitFor
		kind, name := w.owner()
		want := w.Status
		if want == "" {
			want = "True"
		}
		if w.Timeout != "" {
			d, err := time.ParseDuration(w.Timeout)
			if err != nil {
				return fmt.Errorf("waitFor timeout: %w", err)
			}
			bound = d
		}
		deadline := time.Now().Add(bound)
		for {
			var obj *unstructured.Unstructured
			var err error
			if o := w.Object; o != nil {
				target := &unstructured.Unstructured{}
				target.SetAPIVersion(o.APIVersion)
				target.SetKind(o.Kind)
				target.SetNamespace(o.Namespace)
				var ri dynamic.ResourceInterface
				if ri, _, err = c.resource(target); err == nil {
					obj, err = ri.Get(ctx, o.Name, metav1.GetOptions{})
				}
			} else {
				obj, err = workloadOf(ctx, c, w.Namespace, kind, name)
			}
			if err == nil && hasCondition(obj, w.Condition, want) {
				return nil
			}
			if time.Now().After(deadline) {
				if w.Optional {
					fmt.Printf("  warning: workload of %s %s/%s never got %s=%s in %s; going on\n", kind, w.Namespace, name, w.Condition, want, bound)
					return nil
				}
				if o := w.Object; o != nil {
					return fmt.Errorf("%s %s/%s never got %s=%s (last error: %v)", o.Kind, o.Namespace, o.Name, w.Condition, want, err)
				}
				return fmt.Errorf("workload of %s %s/%s never got %s=%s (last error: %v)", kind, w.Namespace, name, w.Condition, want, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	case s.Patch != nil:
		p := s.Patch
		b, err := json.Marshal(p.Merge)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte("${NOW}"), []byte(time.Now().UTC().Format(time.RFC3339)))
		target := &unstructured.Unstructured{}
		target.SetAPIVersion(p.APIVersion)
		target.SetKind(p.Kind)
		target.SetNamespace(p.Namespace)
		target.SetName(p.Name)
		if p.WorkloadOfJob {
			wl, err := workloadOf(ctx, c, p.Namespace, p.Kind, p.Name)
			if err != nil {
				return err
			}
			target = wl
		}
		ri, _, err := c.resource(target)
		if err != nil {
			return err
		}
		var sub []string
		if p.Subresource != "" {
			sub = []string{p.Subresource}
		}
		_, err = ri.Patch(ctx, target.GetName(), types.MergePatchType, b, metav1.PatchOptions{FieldManager: fieldManager}, sub...)
		return err
	case s.Delete != nil:
		target := &unstructured.Unstructured{}
		target.SetAPIVersion(s.Delete.APIVersion)
		target.SetKind(s.Delete.Kind)
		target.SetNamespace(s.Delete.Namespace)
		target.SetName(s.Delete.Name)
		ri, _, err := c.resource(target)
		if err != nil {
			return err
		}
		return ri.Delete(ctx, target.GetName(), metav1.DeleteOptions{})
	case s.Kubelet != nil:
		return runKubelet(ctx, c, *s.Kubelet, bound)
	case s.Remedy != nil:
		return sc.runRemedy(ctx, *s.Remedy)
	}
	return fmt.Errorf("empty step")
}

// workloadOf finds the Workload owned by an object (Kueue names it <kind>-<name>-<hash>). A pod
// group's Workload is owned by each of its Pods.
func workloadOf(ctx context.Context, c *cluster, ns, kind, name string) (*unstructured.Unstructured, error) {
	list, err := c.dyn.Resource(gvrWorkloads).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		for _, ref := range list.Items[i].GetOwnerReferences() {
			if ref.Kind == kind && ref.Name == name {
				return &list.Items[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no Workload for %s %s/%s yet", kind, ns, name)
}

// cleanup removes what a previous run of the scenario left: Pods are force-deleted (no kubelet
// would ever confirm a graceful deletion), then the namespaces and the cluster-scoped objects.
func cleanup(ctx context.Context, c *cluster, all []*unstructured.Unstructured, namespaces map[string]bool) error {
	found := false
	for ns := range namespaces {
		if _, err := c.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
			found = true
		}
	}
	if !found {
		return nil
	}
	bg := metav1.DeletePropagationBackground
	for ns := range namespaces {
		_ = c.kube.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{})
	}
	for i := len(all) - 1; i >= 0; i-- {
		o := all[i]
		if o.GetNamespace() != "" || o.GetKind() == "Namespace" {
			continue
		}
		if ri, _, err := c.resource(o); err == nil {
			_ = ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{})
		}
	}
	for ns := range namespaces {
		_ = c.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		left := 0
		for ns := range namespaces {
			_ = c.kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}, metav1.ListOptions{})
			if _, err := c.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				left++
			}
		}
		for _, o := range all {
			if o.GetNamespace() != "" || o.GetKind() == "Namespace" {
				continue
			}
			if ri, _, err := c.resource(o); err == nil {
				if _, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					left++
				}
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d objects of a previous run are still terminating", left)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// settle waits until the scenario's objects (Events excluded: they keep counting) stop
// changing for 3 seconds, at least 2 seconds after the last step; false if bound ran out.
func settle(ctx context.Context, c *cluster, kinds []dumpKind, namespaces map[string]bool, clusterNames map[string]map[string]bool, bound time.Duration) bool {
	time.Sleep(2 * time.Second)
	deadline := time.Now().Add(bound)
	var last string
	stableSince := time.Now()
	for time.Now().Before(deadline) {
		h := sha256.New()
		for _, d := range kinds {
			if d.kind == "Event" {
				continue
			}
			for _, ns := range sortedKeys(namespaces) {
				list, err := c.dyn.Resource(d.res).Namespace(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					continue
				}
				for _, it := range list.Items {
					fmt.Fprintf(h, "%s/%s/%s=%s;", d.kind, ns, it.GetName(), it.GetResourceVersion())
				}
			}
		}
		for _, d := range dumpCluster {
			for _, n := range sortedKeys(clusterNames[d.kind]) {
				if it, err := c.dyn.Resource(d.res).Get(ctx, n, metav1.GetOptions{}); err == nil {
					fmt.Fprintf(h, "%s/%s=%s;", d.kind, n, it.GetResourceVersion())
				}
			}
		}
		sum := fmt.Sprintf("%x", h.Sum(nil))
		if sum != last {
			last, stableSince = sum, time.Now()
		} else if time.Since(stableSince) >= 3*time.Second {
			return true
		}
		time.Sleep(300 * time.Millisecond)
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dumpScenario renders the objects like `kubectl get -o yaml` of each, as a multi-document stream,
// without managedFields.
func dumpScenario(ctx context.Context, c *cluster, kinds []dumpKind, namespaces map[string]bool, clusterNames map[string]map[string]bool) ([]byte, error) {
	var objs []unstructured.Unstructured
	for _, ns := range sortedKeys(namespaces) {
		it, err := c.dyn.Resource(gvr("", "v1", "namespaces")).Get(ctx, ns, metav1.GetOptions{})
		if err == nil {
			objs = append(objs, *it)
		}
	}
	for _, d := range dumpCluster {
		for _, n := range sortedKeys(clusterNames[d.kind]) {
			it, err := c.dyn.Resource(d.res).Get(ctx, n, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			objs = append(objs, *it)
		}
	}
	for _, d := range kinds {
		for _, ns := range sortedKeys(namespaces) {
			list, err := c.dyn.Resource(d.res).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			items := list.Items
			sort.Slice(items, func(i, j int) bool {
				if d.kind == "Event" {
					ti, tj := eventTime(items[i]), eventTime(items[j])
					if ti != tj {
						return ti < tj
					}
				}
				return items[i].GetName() < items[j].GetName()
			})
			for _, it := range items {
				it.SetAPIVersion(d.res.GroupVersion().String())
				it.SetKind(d.kind)
				objs = append(objs, it)
			}
		}
	}
	var buf bytes.Buffer
	for i, o := range objs {
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// dumpHeaderPrefix starts a dump's first line, followed by the time the dump was taken (RFC
// 3339): the tests that diagnose a dump do it as of that time, as the live check does.
const dumpHeaderPrefix = "# Recorded from the sandbox at "

func dumpHeader(t time.Time) []byte {
	return []byte(dumpHeaderPrefix + t.UTC().Format(time.RFC3339) + " (make sandbox-scenarios).\n")
}

func eventTime(e unstructured.Unstructured) string {
	for _, f := range []string{"lastTimestamp", "eventTime", "firstTimestamp"} {
		if s, ok, _ := unstructured.NestedString(e.Object, f); ok && s != "" {
			return s
		}
	}
	return e.GetCreationTimestamp().UTC().Format(time.RFC3339)
}
