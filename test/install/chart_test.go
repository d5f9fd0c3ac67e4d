package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/config"
)

// TestChartLint: helm lint (Helm's own rules) passes for every value set
// without errors or warnings.
func TestChartLint(t *testing.T) {
	kv, err := common.ParseKubeVersion(KubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, vs := range valueSets(t) {
		t.Run(vs.name, func(t *testing.T) {
			res := lint.RunAll(ChartDir(), vs.values, "kueuebot", lint.WithKubeVersion(kv))
			for _, m := range res.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				}
			}
		})
	}
}

// TestChartValueSets checks, for each value set, what a platform team
// relies on: the restricted security context, the probes on the operations
// port, tokens only from the existing Secret, the config the bot loads, and
// the optional objects appearing exactly when asked for.
func TestChartValueSets(t *testing.T) {
	for _, vs := range valueSets(t) {
		t.Run(vs.name, func(t *testing.T) {
			r := render(t, vs.values, "kueuebot", "kueuebot")
			d := deployment(t, r.Objects)
			pod := d.Spec.Template.Spec
			cfg := loadedConfig(t, r, d)

			// Restricted: non-root, read-only root, no escalation, no
			// capabilities, RuntimeDefault seccomp.
			if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot ||
				pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("pod security context %+v", pod.SecurityContext)
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers", len(pod.Containers))
			}
			c := pod.Containers[0]
			sc := c.SecurityContext
			if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
				t.Errorf("container security context %+v", sc)
			}
			if pod.ServiceAccountName != "kueuebot" || pod.AutomountServiceAccountToken == nil || !*pod.AutomountServiceAccountToken {
				t.Errorf("service account %q automount %v", pod.ServiceAccountName, pod.AutomountServiceAccountToken)
			}

			// Probes and ports follow config.ops.listenAddr.
			opsPort := portOf(t, cfg.Ops.ListenAddr)
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			if ports["ops"] != opsPort {
				t.Errorf("ops port %d, config says %s", ports["ops"], cfg.Ops.ListenAddr)
			}
			for probe, path := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
				if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "ops" {
					t.Errorf("probe for %s: %+v", path, probe)
				}
			}
			if grace := pod.TerminationGracePeriodSeconds; grace == nil || float64(*grace) <= cfg.Ops.ShutdownGrace.Seconds() {
				t.Errorf("terminationGracePeriodSeconds %v does not exceed ops.shutdownGrace %s", grace, cfg.Ops.ShutdownGrace)
			}

			// Downward API for leader election and state.
			for name, field := range map[string]string{"POD_NAMESPACE": "metadata.namespace", "POD_NAME": "metadata.name"} {
				if e := envVar(c, name); e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != field {
					t.Errorf("env %s: %+v", name, e)
				}
			}

			// Optional objects.
			http := cfg.Slack.Mode == config.ModeHTTP
			svc := typed[corev1.Service](t, one(t, r.Objects, "Service", ""))
			svcPorts := map[string]string{}
			for _, p := range svc.Spec.Ports {
				svcPorts[p.Name] = p.TargetPort.String()
			}
			if svcPorts["metrics"] != "ops" {
				t.Errorf("Service ports %v lack metrics -> ops", svcPorts)
			}
			if got := svcPorts["slack"] == "slack" && ports["slack"] == portOf(t, cfg.Slack.ListenAddr); got != http {
				t.Errorf("http mode %v, but Service ports %v, container ports %v", http, svcPorts, ports)
			}
			if !maps.Equal(svc.Spec.Selector, d.Spec.Selector.MatchLabels) {
				t.Errorf("Service selects %v, pods are %v", svc.Spec.Selector, d.Spec.Selector.MatchLabels)
			}
			if sms := find(r.Objects, "ServiceMonitor"); (len(sms) == 1) != (vs.name == "http-servicemonitor") {
				t.Errorf("%d ServiceMonitors", len(sms))
			} else if len(sms) == 1 {
				checkServiceMonitor(t, sms[0], svc)
			}
			// In HTTP mode only the leader is ready: no budget (it would
			// forbid evicting the leader) and no rolling update (it would
			// wait for ever for a standby to be ready).
			if pdbs := find(r.Objects, "PodDisruptionBudget"); (len(pdbs) == 1) != (*d.Spec.Replicas > 1 && !http) {
				t.Errorf("%d replicas, http %v, %d PodDisruptionBudgets", *d.Spec.Replicas, http, len(pdbs))
			}
			if recreate := d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType; recreate != http {
				t.Errorf("http %v, strategy %q", http, d.Spec.Strategy.Type)
			}
			// The Lease Role always (leader election), and one in Kueue's
			// namespace with kube.kueueConfig.
			if roles, want := find(r.Objects, "Role"), 1+map[bool]int{true: 1}[cfg.Kube.KueueConfig.Enabled()]; len(roles) != want {
				t.Errorf("%d Roles, want %d", len(roles), want)
			}
			checkNetworkPolicy(t, typed[networkingv1.NetworkPolicy](t, one(t, r.Objects, "NetworkPolicy", "")), d, http)

			if !strings.Contains(r.Notes, "kubectl -n kueuebot create secret generic kueuebot-slack") {
				t.Errorf("NOTES.txt does not say how to create the Secret:\n%s", r.Notes)
			}
		})
	}
}

// loadedConfig checks the ConfigMap and the env vars the pod gets, then
// loads the config as kueuebot serve does: the mounted file plus the
// environment (tokens from the Secret, here stand-ins).
func loadedConfig(t *testing.T, r *Rendered, d *appsv1.Deployment) *config.Config {
	t.Helper()
	pod := d.Spec.Template.Spec
	cm := typed[corev1.ConfigMap](t, one(t, r.Objects, "ConfigMap", ""))
	var mounted bool
	for _, v := range pod.Volumes {
		mounted = mounted || (v.ConfigMap != nil && v.ConfigMap.Name == cm.Name)
	}
	if !mounted || !slices.Equal(pod.Containers[0].Args, []string{"serve", "--config", "/etc/kueuebot/config.yaml"}) {
		t.Errorf("ConfigMap %s not mounted as the config file (args %v)", cm.Name, pod.Containers[0].Args)
	}
	sum := sha256.Sum256([]byte(r.Files["kueuebot/templates/configmap.yaml"]))
	if got := d.Spec.Template.Annotations["checksum/config"]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("checksum/config %q is not the ConfigMap's", got)
	}
	stand := map[string]string{"botToken": "xoxb-test", "appToken": "xapp-test", "signingSecret": "test-signing-secret"}
	for _, e := range pod.Containers[0].Env {
		if !strings.HasPrefix(e.Name, config.EnvPrefix+"_") {
			continue
		}
		ref := e.ValueFrom
		if e.Value != "" || ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "kueuebot-slack" {
			t.Errorf("%s does not come from the Secret kueuebot-slack: %+v", e.Name, e)
			continue
		}
		t.Setenv(e.Name, stand[ref.SecretKeyRef.Key])
	}
	cfg, err := config.Parse([]byte(cm.Data["config.yaml"]))
	if err != nil {
		t.Fatalf("the bot does not load the chart's config: %v", err)
	}
	if err := cfg.RequireSlack(); err != nil {
		t.Errorf("the pod's environment lacks credentials for mode %s: %v", cfg.Slack.Mode, err)
	}
	return cfg
}

// checkServiceMonitor: it selects the Service (all of whose pods are the
// bot's) and scrapes its metrics port at /metrics, with the labels the
// Prometheus selects ServiceMonitors by.
func checkServiceMonitor(t *testing.T, sm *unstructured.Unstructured, svc *corev1.Service) {
	t.Helper()
	sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(sel) == 0 || !subset(sel, svc.Labels) || !maps.Equal(sel, svc.Spec.Selector) {
		t.Errorf("ServiceMonitor selects %v; the Service has labels %v", sel, svc.Labels)
	}
	if len(eps) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v", eps)
	}
	ep := eps[0].(map[string]any)
	if ep["port"] != "metrics" || ep["path"] != "/metrics" || sm.GetLabels()["release"] != "prometheus" {
		t.Errorf("ServiceMonitor endpoint %v, labels %v", ep, sm.GetLabels())
	}
}

func envVar(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	var p int32
	i := strings.LastIndex(addr, ":")
	if _, err := fmt.Sscan(addr[i+1:], &p); err != nil {
		t.Fatalf("listen address %q: %v", addr, err)
	}
	return p
}

func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkNetworkPolicy: the bot's pods may reach DNS, 443 and the API server
// and be reached on the operations port (and Slack's, in http mode) only.
func checkNetworkPolicy(t *testing.T, np *networkingv1.NetworkPolicy, d *appsv1.Deployment, http bool) {
	t.Helper()
	if !maps.Equal(np.Spec.PodSelector.MatchLabels, d.Spec.Selector.MatchLabels) {
		t.Errorf("NetworkPolicy selects %v, pods are %v", np.Spec.PodSelector.MatchLabels, d.Spec.Selector.MatchLabels)
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("policy types %v", np.Spec.PolicyTypes)
	}
	var egress []string
	for _, r := range np.Spec.Egress {
		for _, p := range r.Ports {
			egress = append(egress, fmt.Sprintf("%s/%s", *p.Protocol, p.Port))
		}
	}
	if want := []string{"UDP/53", "TCP/53", "TCP/443", "TCP/6443"}; !slices.Equal(egress, want) {
		t.Errorf("egress ports %v, want %v", egress, want)
	}
	var ingress []string
	for _, r := range np.Spec.Ingress {
		for _, p := range r.Ports {
			ingress = append(ingress, p.Port.String())
		}
	}
	want := []string{"ops"}
	if http {
		want = append(want, "slack")
	}
	if !slices.Equal(ingress, want) {
		t.Errorf("ingress ports %v, want %v", ingress, want)
	}
}

// TestConfigChangeRollsPods: the pod template changes with the config
// (the checksum), so helm upgrade restarts the bot on a new config.
func TestConfigChangeRollsPods(t *testing.T) {
	a := deployment(t, render(t, nil, "kueuebot", "kueuebot").Objects)
	b := deployment(t, render(t, parseValues(t, "config: {identity: {refusalContact: '#help'}}"), "kueuebot", "kueuebot").Objects)
	if a.Spec.Template.Annotations["checksum/config"] == b.Spec.Template.Annotations["checksum/config"] {
		t.Error("a config change leaves the pod template as it was")
	}
}

// TestChartFailsClearly: value combinations the schema cannot judge stop
// helm install with a message that says what to change.
func TestChartFailsClearly(t *testing.T) {
	for _, tt := range []struct{ values, want string }{
		{"terminationGracePeriodSeconds: 20", "terminationGracePeriodSeconds (20) must exceed config.ops.shutdownGrace (25s)"},
		{"config: {ops: {shutdownGrace: 1.5s}}", `config.ops.shutdownGrace "1.5s": in the chart, write it in whole minutes and seconds`},
		{"config: {slack: {mode: websocket}}", `config.slack.mode "websocket": want socket or http`},
		{"config: {ops: {listenAddr: 'localhost'}}", `listen address "localhost" has no numeric port`},
		{"serviceAccount: {create: false}", "serviceAccount.name is required when serviceAccount.create is false"},
	} {
		_, err := RenderChart(ChartDir(), parseValues(t, tt.values), "kueuebot", "kueuebot")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.values, err, tt.want)
		}
	}
}

// TestSchemaRejects: values.schema.json stops bad values at helm install,
// before anything reaches the cluster, naming the offending key.
func TestSchemaRejects(t *testing.T) {
	for _, tt := range []struct{ name, values, want string }{
		{"a token in values", "config: {slack: {botToken: xoxb-1234}}", "botToken"},
		{"the signing secret in values", "config: {slack: {signingSecret: s3cr3t}}", "signingSecret"},
		{"an unknown config key", "config: {kube: {requestTimout: 10s}}", "requestTimout"},
		{"a config key of the wrong type", "config: {kube: {maxNamespaces: many}}", "maxNamespaces"},
		{"a duration that is not one", "config: {identity: {cacheTTL: five minutes}}", "cacheTTL"},
		{"a list of users that is a map", "config: {identity: {users: {alice: U0000ALICE}}}", "users"},
		{"a user mapping with a typo", "config: {identity: {users: [{slackUserId: U0000ALICE, teamID: T0000ACME1, user: alice}]}}", "slackUserId"},
		{"replicas as a word", "replicas: two", "replicas"},
		{"zero replicas", "replicas: 0", "replicas"},
		{"no Secret name", "slack: {existingSecret: ''}", "existingSecret"},
		{"an unknown top-level value", "replicaCount: 3", "replicaCount"},
		{"a pull policy that is not one", "image: {pullPolicy: Sometimes}", "pullPolicy"},
		{"a KUEUEBOT_ override in extraEnv", "extraEnv: [{name: KUEUEBOT_KUBE_CLUSTERSCOPEDREADS, value: bot}]", "extraEnv"},
		{"binding the reader role to system:masters", "rbac: {readerBindings: [{namespace: a, subjects: [{kind: Group, name: 'system:masters'}]}]}", "readerBindings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RenderChart(ChartDir(), parseValues(t, tt.values), "kueuebot", "kueuebot")
			if err == nil {
				t.Fatalf("values %s were accepted", tt.values)
			}
			if !strings.Contains(err.Error(), "values don't meet the specifications of the schema") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a schema error naming %q", err, tt.want)
			}
		})
	}
	// And the good ones pass it.
	for _, vs := range valueSets(t) {
		if _, err := RenderChart(ChartDir(), vs.values, "kueuebot", "kueuebot"); err != nil {
			t.Errorf("%s: %v", vs.name, err)
		}
	}
}

// TestChartMountsClusterKubeconfigs: with several clusters, each
// clusterKubeconfigs entry mounts its Secret's kubeconfig read-only at the
// path the cluster's config.clusters[].kubeconfig names, and the bot loads
// that config; an entry for no configured cluster, a path that does not
// match, a cluster mounted twice, or a configured kubeconfig under the
// mount folder with no entry fail the render, naming the cluster.
func TestChartMountsClusterKubeconfigs(t *testing.T) {
	values := `
config:
  clusters:
    - {name: home, inCluster: true}
    - {name: gpu-west, kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig, multiKueueCluster: worker-west}
    - {name: gpu-east, kubeconfig: /etc/kueuebot/clusters/gpu-east/kubeconfig}
clusterKubeconfigs:
  - {cluster: gpu-west, secretName: kueuebot-gpu-west}
  - {cluster: gpu-east, secretName: kueuebot-gpu-east, key: config}
`
	r := render(t, parseValues(t, values), "kueuebot", "kueuebot")
	d := deployment(t, r.Objects)
	cfg := loadedConfig(t, r, d)
	if got := cfg.ClusterNames(); !slices.Equal(got, []string{"home", "gpu-west", "gpu-east"}) {
		t.Fatalf("the bot's clusters are %v", got)
	}
	pod := d.Spec.Template.Spec
	for _, want := range []struct{ cluster, secret, key string }{{"gpu-west", "kueuebot-gpu-west", "kubeconfig"}, {"gpu-east", "kueuebot-gpu-east", "config"}} {
		var vol *corev1.Volume
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == "cluster-"+want.cluster {
				vol = &pod.Volumes[i]
			}
		}
		if vol == nil || vol.Secret == nil || vol.Secret.SecretName != want.secret || len(vol.Secret.Items) != 1 ||
			vol.Secret.Items[0].Key != want.key || vol.Secret.Items[0].Path != "kubeconfig" {
			t.Errorf("%s: volume %+v, want Secret %s key %s as kubeconfig", want.cluster, vol, want.secret, want.key)
			continue
		}
		var mount *corev1.VolumeMount
		for i, m := range pod.Containers[0].VolumeMounts {
			if m.Name == vol.Name {
				mount = &pod.Containers[0].VolumeMounts[i]
			}
		}
		var configured string
		for _, cl := range cfg.Clusters {
			if cl.Name == want.cluster {
				configured = cl.Kubeconfig
			}
		}
		if mount == nil || !mount.ReadOnly || mount.MountPath+"/kubeconfig" != configured {
			t.Errorf("%s: mount %+v, but the config reads %s", want.cluster, mount, configured)
		}
	}

	for _, tt := range []struct{ values, want string }{
		{"config: {clusters: [{name: home, inCluster: true}]}\nclusterKubeconfigs: [{cluster: gpu-west, secretName: s}]",
			`clusterKubeconfigs[0]: config.clusters has no cluster "gpu-west"`},
		{"config: {clusters: [{name: gpu-west, kubeconfig: /kube/west}]}\nclusterKubeconfigs: [{cluster: gpu-west, secretName: s}]",
			`clusterKubeconfigs[0]: config.clusters "gpu-west" reads kubeconfig "/kube/west", but its Secret is mounted at "/etc/kueuebot/clusters/gpu-west/kubeconfig"`},
		{"config: {clusters: [{name: gpu-west, kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig}]}\nclusterKubeconfigs: [{cluster: gpu-west, secretName: s}, {cluster: gpu-west, secretName: t}]",
			`clusterKubeconfigs[1]: cluster "gpu-west" is mounted twice`},
		{"config: {clusters: [{name: gpu-west, kubeconfig: /etc/kueuebot/clusters/gpu-west/kubeconfig}]}",
			`config.clusters "gpu-west" reads kubeconfig "/etc/kueuebot/clusters/gpu-west/kubeconfig", but no clusterKubeconfigs entry mounts a Secret there`},
	} {
		_, err := RenderChart(ChartDir(), parseValues(t, tt.values), "kueuebot", "kueuebot")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\nerr = %v,\nwant %q", tt.values, err, tt.want)
		}
	}
}
