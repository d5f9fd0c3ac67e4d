package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// tenYears in seconds (Kueue's backoff fields are int32 seconds).
const tenYears = 10 * 365 * 24 * 3600

// defaultVariant names Kueue's default sandbox configuration.
const defaultVariant = "default"

// kueueVariants are Kueue configurations for what the default one cannot show, each merged over
// the default (maps merge key by key; other values replace). A scenario names its variant in
// scenario.yaml (`config:`); the runner restarts Kueue with it for that group of scenarios.
var kueueVariants = map[string]map[string]any{
	// Every admission waits until the admitted Workloads have ready Pods; with no kubelet, Pods of
	// an admitted Job never get ready unless a scenario writes their status (WaitingForPodsReady).
	"pods-ready-blocking": {"waitForPodsReady": map[string]any{"timeout": "10m", "blockAdmission": true}},
	// Admitted Workloads whose Pods are not ready in 5 s are evicted and requeued after a backoff
	// of ten years: the state stays put, and a dump replayed later still shows the backoff running
	// (with an hour, the committed dump's backoff would be over by the time tests replay it).
	"pods-ready-timeout": {"waitForPodsReady": map[string]any{"timeout": "5s", "blockAdmission": false,
		"requeuingStrategy": map[string]any{"timestamp": "Eviction", "backoffLimitCount": 5, "backoffBaseSeconds": tenYears, "backoffMaxSeconds": tenYears}}},
	// The first PodsReady timeout (3 s) deactivates the Workload (Deactivated/RequeuingLimitExceeded).
	"pods-ready-limit": {"waitForPodsReady": map[string]any{"timeout": "3s", "blockAdmission": false,
		"requeuingStrategy": map[string]any{"timestamp": "Eviction", "backoffLimitCount": 0}}},
	// Fair sharing among the ClusterQueues of a cohort (preemption by share instead of by priority).
	"fair-sharing": {"fairSharing": map[string]any{"preemptionStrategies": []any{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}}},
	// Kueue manages jobs only in namespaces without the label kueuebot.io/unmanaged (and, as by
	// default, not in kube-system or kueue-system); ManagedJobsNamespaceSelectorAlwaysRespected
	// (beta, on in v0.17) applies it to jobs that name a LocalQueue too.
	"unmanaged-namespace": {"managedJobsNamespaceSelector": map[string]any{"matchExpressions": []any{
		map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", kueueNamespace}},
		map[string]any{"key": "kueuebot.io/unmanaged", "operator": "DoesNotExist"},
	}}},
	// The alpha kueue.x-k8s.io/admission-gated-by annotation holds Workloads back.
	"admission-gated-by": {"featureGates": map[string]any{"AdmissionGatedBy": true}},
	// Topology-aware scheduling (beta, on by default in v0.17: set explicitly). A group of its own
	// because its scenarios register Nodes: removed after their dump, they never change what
	// kube-scheduler says about the other scenarios' pods ("0/3 nodes are available: ...").
	"tas": {"featureGates": map[string]any{"TopologyAwareScheduling": true}},
}

// variantNames lists the known variants, default first.
func variantNames() []string {
	names := []string{defaultVariant}
	for n := range kueueVariants {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	return names
}

// kueueSettings is what sandbox-up decided about the Kueue process; saved in
// <state>/config/kueue.json so that `sandbox scenarios` can restart Kueue with another variant.
type kueueSettings struct {
	HealthPort     int      `json:"healthPort"`
	WebhookPort    int      `json:"webhookPort"`
	VisibilityPort int      `json:"visibilityPort"`
	WebhookCertDir string   `json:"webhookCertDir"`
	Visibility     bool     `json:"visibility"`
	ConfigPath     string   `json:"configPath"`
	Bin            string   `json:"bin"`
	Args           []string `json:"args"`
	Env            []string `json:"env"`
	// Worker: this Kueue is a MultiKueue worker's (batch Jobs and Pods only; see enabledIntegrations).
	Worker bool `json:"worker,omitempty"`
	// Variant is the configuration Kueue runs with now.
	Variant string `json:"variant"`
}

func settingsPath(state string) string { return filepath.Join(state, "config", "kueue.json") }

func loadSettings(state string) (kueueSettings, error) {
	var k kueueSettings
	b, err := os.ReadFile(settingsPath(state))
	if err != nil {
		return k, fmt.Errorf("sandbox state has no Kueue settings (started by an older runner? run make sandbox-down sandbox-up): %w", err)
	}
	return k, json.Unmarshal(b, &k)
}

func (k kueueSettings) save(state string) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(settingsPath(state), b, 0o644)
}

// config renders Kueue's Configuration for a variant. The default: metrics server off ("0"),
// leader election off (one replica), internal cert management off (the sandbox brings its certs),
// VisibilityOnDemand only with -visibility (see README), every integration the sandbox installs,
// everything else Kueue's defaults (waitForPodsReady off, no manageJobsWithoutQueueName).
func (k kueueSettings) config(variant string) ([]byte, error) {
	cfg := map[string]any{
		"apiVersion":             "config.kueue.x-k8s.io/v1beta2",
		"kind":                   "Configuration",
		"namespace":              kueueNamespace,
		"health":                 map[string]any{"healthProbeBindAddress": fmt.Sprintf("127.0.0.1:%d", k.HealthPort)},
		"metrics":                map[string]any{"bindAddress": "0"},
		"webhook":                map[string]any{"host": "127.0.0.1", "port": k.WebhookPort, "certDir": k.WebhookCertDir},
		"leaderElection":         map[string]any{"leaderElect": false},
		"internalCertManagement": map[string]any{"enable": false},
		"featureGates":           map[string]any{"VisibilityOnDemand": k.Visibility},
		"visibilityServer":       map[string]any{"bindAddress": "127.0.0.1", "bindPort": k.VisibilityPort},
		"integrations":           map[string]any{"frameworks": toAny(frameworks(k.Worker))},
	}
	if variant != defaultVariant {
		overlay, ok := kueueVariants[variant]
		if !ok {
			return nil, fmt.Errorf("unknown Kueue configuration %q (known: %s)", variant, strings.Join(variantNames(), ", "))
		}
		cfg = mergeMaps(cfg, overlay)
	}
	return yaml.Marshal(cfg)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// mergeMaps returns base with overlay merged in: nested maps merge, other values replace.
func mergeMaps(base, overlay map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range overlay {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// startKueue writes the variant's configuration and starts Kueue; with wait, it waits for its
// readyz (the webhook server listens).
func startKueue(ctx context.Context, state string, k kueueSettings, variant string, wait bool) error {
	b, err := k.config(variant)
	if err != nil {
		return err
	}
	if err := writeFile(k.ConfigPath, b, 0o644); err != nil {
		return err
	}
	if err := publishKueueConfig(ctx, state, b); err != nil {
		return err
	}
	if k.Visibility {
		// Kueue's private mount namespace binds its visibility certificates
		// on the host's /visibility: make sure it is still there when Kueue
		// restarts (another sandbox's down may have removed an empty one).
		if err := os.MkdirAll("/visibility", 0o755); err != nil {
			return fmt.Errorf("visibility needs an empty /visibility mount point: %w", err)
		}
	}
	if _, err := start(state, "kueue", k.Bin, k.Args, k.Env); err != nil {
		return err
	}
	if wait {
		if err := waitKueue(ctx, state, k); err != nil {
			return err
		}
	}
	k.Variant = variant
	if err := k.save(state); err != nil {
		return err
	}
	return setEnv(state, "SANDBOX_KUEUE_CONFIG", variant)
}

// Kueue's manager ConfigMap as a real install has it (config/components/manager): kueuebot's
// kube.kueueConfig reads the Configuration from there. Kueue itself reads the file.
const (
	kueueConfigMap    = "kueue-manager-config"
	kueueConfigMapKey = "controller_manager_config.yaml"
)

// publishKueueConfig writes the running Configuration into kueue-system/kueue-manager-config.
func publishKueueConfig(ctx context.Context, state string, cfg []byte) error {
	c, err := newCluster(filepath.Join(state, "kubeconfig"))
	if err != nil {
		return err
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": kueueConfigMap, "namespace": kueueNamespace},
		"data":     map[string]any{kueueConfigMapKey: string(cfg)},
	}}
	if err := c.apply(ctx, cm); err != nil {
		return fmt.Errorf("publish Kueue's Configuration: %w", err)
	}
	return nil
}

func waitKueue(ctx context.Context, state string, k kueueSettings) error {
	return waitHTTP(ctx, state, "kueue", fmt.Sprintf("http://127.0.0.1:%d/readyz", k.HealthPort), nil, func(b []byte) bool { return string(b) == "ok" })
}

// switchKueue restarts Kueue with variant unless it already runs with it.
func switchKueue(ctx context.Context, state, variant string) error {
	k, err := loadSettings(state)
	if err != nil {
		return err
	}
	if k.Variant == variant {
		return nil
	}
	t0 := time.Now()
	if err := stopOne(state, "kueue"); err != nil {
		return err
	}
	if err := startKueue(ctx, state, k, variant, true); err != nil {
		return fmt.Errorf("restart Kueue with configuration %s: %w", variant, err)
	}
	fmt.Printf("kueue restarted with configuration %s (%.1fs)\n", variant, time.Since(t0).Seconds())
	return nil
}

// setEnv sets KEY=value in <state>/env (the sourceable file tests read).
func setEnv(state, key, value string) error {
	p := filepath.Join(state, "env")
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, key+"=") {
			lines = append(lines, l)
		}
	}
	lines = append(lines, key+"="+value)
	return writeFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
