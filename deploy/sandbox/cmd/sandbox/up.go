package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

type options struct {
	state     string // the .sandbox directory
	kubeBin   string // dir with etcd, kube-apiserver, kube-controller-manager, kube-scheduler
	kueueBin  string // dir with kueue
	jobsetBin string // dir with jobset (the JobSet controller)
	kueueDir  string // the sigs.k8s.io/kueue@v0.17.0 module directory (CRDs, RBAC, webhooks); resolved from buildDir when empty
	// buildDir is deploy/sandbox/build/kueue, whose module graph pins the integrations' modules
	// (their CRDs are read from the module cache).
	buildDir string
	goBin    string
	timeout  time.Duration
	// visibility serves Kueue's visibility API through the aggregator (opt-in; see README).
	visibility bool
	// worker also starts a MultiKueue worker sandbox in <state>/worker (see worker.go).
	worker bool
	// role is roleWorker for the worker sandbox itself.
	role string
}

// testUsers are the static-token users; the admin is in system:masters, the others are plain users.
var testUsers = []string{"alice", "bob", "carol", "kueuebot"}

// stateEntries are the only paths sandbox-up removes before a fresh start.
var stateEntries = []string{"pki", "config", "etcd-data", "kueue-etc", "logs", "pids", "audit.log", "env", "kubeconfig",
	"kubeconfig-alice", "kubeconfig-bob", "kubeconfig-carol", "kubeconfig-kueuebot", "kubeconfig-" + multiKueueUser, workerDir}

type ports struct{ etcd, etcdPeer, api, webhook, health, visibility, jobsetWebhook, jobsetHealth int }

type stepTimer struct{ t0, last time.Time }

func (s *stepTimer) step(msg string) {
	now := time.Now()
	fmt.Printf("  %-52s %5.1fs (total %5.1fs)\n", msg, now.Sub(s.last).Seconds(), now.Sub(s.t0).Seconds())
	s.last = now
}

func up(opts options) (err error) {
	isWorker := opts.role == roleWorker
	if isWorker {
		opts.visibility = false
	}
	if r := append(running(opts.state), running(workerState(opts.state))...); len(r) > 0 {
		return fmt.Errorf("sandbox already running: %s; run `make sandbox-down` first", strings.Join(r, ", "))
	}
	for _, e := range stateEntries {
		if err := os.RemoveAll(filepath.Join(opts.state, e)); err != nil {
			return err
		}
	}
	for _, b := range []string{filepath.Join(opts.kubeBin, "etcd"), filepath.Join(opts.kubeBin, "kube-apiserver"),
		filepath.Join(opts.kubeBin, "kube-controller-manager"), filepath.Join(opts.kubeBin, "kube-scheduler"), filepath.Join(opts.kueueBin, "kueue"),
		filepath.Join(opts.jobsetBin, "jobset")} {
		if isWorker && strings.HasSuffix(b, "/jobset") {
			continue
		}
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("missing binary %s; run `make sandbox-build`", b)
		}
	}
	modDirs, err := moduleDirs(opts.goBin, opts.buildDir)
	if err != nil {
		return err
	}
	if opts.kueueDir == "" {
		opts.kueueDir = modDirs["sigs.k8s.io/kueue"]
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout)
	defer cancel()
	// Whatever happens, do not leave half a sandbox running.
	defer func() {
		if err != nil {
			fmt.Fprintf(os.Stderr, "sandbox-up failed: %v\nlogs: %s\nstopping what was started\n", err, filepath.Join(opts.state, "logs"))
			_ = stopAll(opts.state)
		}
	}()
	st := &stepTimer{t0: time.Now(), last: time.Now()}
	fmt.Printf("sandbox-up: state in %s\n", opts.state)

	p, err := pickPorts(isWorker)
	if err != nil {
		return err
	}
	s := opts.state
	pki := filepath.Join(s, "pki")
	ca, err := newAuthority("kueuebot-sandbox-ca")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(pki, "ca.crt"), ca.certPEM, 0o644); err != nil {
		return err
	}
	if err := ca.serving(filepath.Join(pki, "apiserver"), "kube-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc"); err != nil {
		return err
	}
	if err := ca.serving(filepath.Join(pki, "kueue-webhook"), "kueue-webhook-service.kueue-system.svc"); err != nil {
		return err
	}
	if err := ca.serving(filepath.Join(pki, "jobset-webhook"), "jobset-webhook-service.jobset-system.svc"); err != nil {
		return err
	}
	// Kueue reads its metrics certificate from the fixed path /etc/kueue/metrics/certs; it gets
	// that path through an overlay of /etc in a private mount namespace (see README).
	if err := ca.serving(filepath.Join(s, "kueue-etc", "upper", "kueue", "metrics", "certs"), "kueue-metrics"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s, "kueue-etc", "work"), 0o700); err != nil {
		return err
	}
	if err := serviceAccountKeys(pki); err != nil {
		return err
	}
	// The aggregation layer's front proxy (requestheader) CA and client certificate, so that
	// aggregated API servers (Kueue's visibility server) can trust the apiserver.
	frontProxy, err := newAuthority("kueuebot-sandbox-front-proxy-ca")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(pki, "front-proxy-ca.crt"), frontProxy.certPEM, 0o644); err != nil {
		return err
	}
	if err := frontProxy.client(filepath.Join(pki, "front-proxy-client"), "front-proxy-client"); err != nil {
		return err
	}
	visibilityCerts := ""
	if opts.visibility {
		// Kueue's visibility server reads /visibility/tls.{crt,key} (fixed path); it gets a bind mount
		// there in its private mount namespace. The empty mount point has to exist on the host.
		visibilityCerts = filepath.Join(pki, "kueue-visibility")
		if err := ca.serving(visibilityCerts, "kueue-visibility-server.kueue-system.svc"); err != nil {
			return err
		}
		if _, err := os.Stat("/visibility"); os.IsNotExist(err) {
			if err := os.Mkdir("/visibility", 0o755); err != nil {
				return fmt.Errorf("visibility needs an empty /visibility mount point: %w", err)
			}
			// sandbox-down removes the mount point it created.
			if err := os.WriteFile(filepath.Join(s, visibilityMarker), nil, 0o644); err != nil {
				return err
			}
		}
	}
	tokens := map[string]string{"admin": randomToken(), "kube-controller-manager": randomToken(), "kube-scheduler": randomToken()}
	users := testUsers
	if isWorker {
		// The manager's Kueue reaches the worker as this user (see workerRBAC).
		users = append(slices.Clone(testUsers), multiKueueUser)
	}
	for _, u := range users {
		tokens[u] = randomToken()
	}
	var csv strings.Builder
	fmt.Fprintf(&csv, "%s,admin,admin-uid,\"system:masters\"\n", tokens["admin"])
	fmt.Fprintf(&csv, "%s,system:kube-controller-manager,kcm-uid,\"system:masters\"\n", tokens["kube-controller-manager"])
	fmt.Fprintf(&csv, "%s,system:kube-scheduler,scheduler-uid\n", tokens["kube-scheduler"])
	for _, u := range users {
		fmt.Fprintf(&csv, "%s,%s,%s-uid\n", tokens[u], u, u)
	}
	cfgDir := filepath.Join(s, "config")
	if err := writeFile(filepath.Join(cfgDir, "tokens.csv"), []byte(csv.String()), 0o600); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(cfgDir, "audit-policy.yaml"), []byte(auditPolicy), 0o644); err != nil {
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", p.api)
	if err := writeKubeconfig(filepath.Join(s, "kubeconfig"), server, ca.certPEM, "admin", tokens["admin"]); err != nil {
		return err
	}
	for _, u := range users {
		if err := writeKubeconfig(filepath.Join(s, "kubeconfig-"+u), server, ca.certPEM, u, tokens[u]); err != nil {
			return err
		}
	}
	for _, c := range []string{"kube-controller-manager", "kube-scheduler"} {
		if err := writeKubeconfig(filepath.Join(cfgDir, c+".kubeconfig"), server, ca.certPEM, c, tokens[c]); err != nil {
			return err
		}
	}
	st.step("certificates, tokens, kubeconfigs")

	// etcd
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcd)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	if _, err := start(s, "etcd", filepath.Join(opts.kubeBin, "etcd"), []string{
		"--name=sandbox", "--data-dir=" + filepath.Join(s, "etcd-data"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=sandbox=" + peerURL, "--unsafe-no-fsync=true", "--log-level=warn",
	}, nil); err != nil {
		return err
	}
	if err := waitHTTP(ctx, s, "etcd", etcdURL+"/health", nil, func(b []byte) bool { return strings.Contains(string(b), `"health":"true"`) }); err != nil {
		return err
	}
	st.step("etcd healthy")

	// kube-apiserver
	if _, err := start(s, "kube-apiserver", filepath.Join(opts.kubeBin, "kube-apiserver"), []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(p.api),
		"--cert-dir=" + filepath.Join(pki, "apiserver"),
		"--tls-cert-file=" + filepath.Join(pki, "apiserver", "tls.crt"),
		"--tls-private-key-file=" + filepath.Join(pki, "apiserver", "tls.key"),
		"--token-auth-file=" + filepath.Join(cfgDir, "tokens.csv"),
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(pki, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(pki, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--audit-policy-file=" + filepath.Join(cfgDir, "audit-policy.yaml"),
		"--audit-log-path=" + filepath.Join(s, "audit.log"),
		"--audit-log-format=json",
		"--allow-privileged=true",
		"--requestheader-client-ca-file=" + filepath.Join(pki, "front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(pki, "front-proxy-client", "tls.crt"),
		"--proxy-client-key-file=" + filepath.Join(pki, "front-proxy-client", "tls.key"),
		"--profiling=false",
	}, nil); err != nil {
		return err
	}
	if err := waitHTTP(ctx, s, "kube-apiserver", server+"/readyz", ca.certPEM, func(b []byte) bool { return string(b) == "ok" }); err != nil {
		return err
	}
	st.step("kube-apiserver ready")

	admin, err := newCluster(filepath.Join(s, "kubeconfig"))
	if err != nil {
		return err
	}
	webhookURL := fmt.Sprintf("https://127.0.0.1:%d", p.webhook)
	var objs []*unstructured.Unstructured
	ns, _ := decodeYAML([]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + kueueNamespace + "\n"))
	objs = append(objs, ns...)
	crds, err := renderCRDs(opts.kueueDir, webhookURL, ca.certPEM)
	if err != nil {
		return err
	}
	kueueCRDs := len(crds)
	// A worker has the job kinds' CRDs too (no controllers): the manager's MultiKueue watches
	// every kind it integrates on each worker, and marks a worker without one inactive.
	moreCRDs, err := renderIntegrationCRDs(modDirs)
	if err != nil {
		return err
	}
	crds = append(crds, moreCRDs...)
	rbac, err := renderRBAC(opts.kueueDir)
	if err != nil {
		return err
	}
	objs = append(objs, rbac...)
	extra, err := decodeYAML([]byte(sandboxRBAC))
	if err != nil {
		return err
	}
	objs = append(objs, extra...)
	if isWorker {
		w, err := decodeYAML([]byte(workerRBAC))
		if err != nil {
			return err
		}
		objs = append(objs, w...)
	} else {
		jobsetObjs, err := renderJobSet(modDirs[jobsetModule])
		if err != nil {
			return err
		}
		objs = append(objs, jobsetObjs...)
	}
	if err := admin.applyAll(ctx, objs[:1]); err != nil { // the namespace
		return err
	}
	if err := admin.applyParallel(ctx, crds, 4); err != nil {
		return err
	}
	if err := admin.applyAll(ctx, objs[1:]); err != nil {
		return err
	}
	if err := waitCRDs(ctx, admin, crds); err != nil {
		return err
	}
	st.step(fmt.Sprintf("CRDs (Kueue %d, job kinds %d), RBAC (%d) applied", kueueCRDs, len(moreCRDs), len(rbac)))

	// Kueue runs as its ServiceAccount (a bound token from the TokenRequest API).
	tr, err := admin.kube.CoreV1().ServiceAccounts(kueueNamespace).CreateToken(ctx, "kueue-controller-manager",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(30 * 24 * 3600))}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for kueue-controller-manager: %w", err)
	}
	kueueKubeconfig := filepath.Join(cfgDir, "kueue.kubeconfig")
	if err := writeKubeconfig(kueueKubeconfig, server, ca.certPEM, "system:serviceaccount:kueue-system:kueue-controller-manager", tr.Status.Token); err != nil {
		return err
	}
	kueueConfig := filepath.Join(cfgDir, "kueue-config.yaml")
	ks := kueueSettings{HealthPort: p.health, WebhookPort: p.webhook, VisibilityPort: p.visibility,
		WebhookCertDir: filepath.Join(pki, "kueue-webhook"), Visibility: opts.visibility, ConfigPath: kueueConfig, Worker: isWorker}
	hooks, err := renderWebhooks(opts.kueueDir, webhookURL, ca.certPEM, isWorker)
	if err != nil {
		return err
	}
	if isWorker {
		return upWorkerRest(ctx, opts, st, admin, ks, hooks, server, webhookURL, etcdURL, cfgDir, pki, kueueKubeconfig)
	}
	jobsetHooks, err := renderJobSetWebhooks(modDirs[jobsetModule], fmt.Sprintf("https://127.0.0.1:%d", p.jobsetWebhook), ca.certPEM)
	if err != nil {
		return err
	}
	hooks = append(hooks, jobsetHooks...)
	// The JobSet controller, as its ServiceAccount too.
	jtr, err := admin.kube.CoreV1().ServiceAccounts(jobsetNamespace).CreateToken(ctx, "jobset-controller-manager",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(30 * 24 * 3600))}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for jobset-controller-manager: %w", err)
	}
	jobsetKubeconfig := filepath.Join(cfgDir, "jobset.kubeconfig")
	if err := writeKubeconfig(jobsetKubeconfig, server, ca.certPEM, "system:serviceaccount:jobset-system:jobset-controller-manager", jtr.Status.Token); err != nil {
		return err
	}
	jobsetCfg, err := jobsetConfig(p.jobsetHealth, p.jobsetWebhook, filepath.Join(pki, "jobset-webhook"))
	if err != nil {
		return err
	}
	jobsetConfigPath := filepath.Join(cfgDir, "jobset-config.yaml")
	if err := writeFile(jobsetConfigPath, jobsetCfg, 0o644); err != nil {
		return err
	}
	if err := admin.applyAll(ctx, hooks); err != nil {
		return err
	}
	if opts.visibility {
		// Before Kueue starts: its visibility server reads the requestheader CA at start-up.
		objs, err := decodeYAML([]byte(fmt.Sprintf(visibilityTemplate, p.visibility)))
		if err != nil {
			return err
		}
		if err := admin.applyAll(ctx, objs); err != nil {
			return err
		}
	}
	// Kueue reads fixed paths for its metrics (and visibility) certificates: it runs in a private
	// mount namespace where /etc is an overlay holding them (see README).
	ks.Bin = "unshare"
	ks.Args = []string{"--mount", "--propagation=private", "sh", "-c",
		`mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && { [ -z "$3" ] || mount --bind "$3" /visibility; } && shift 3 && exec "$@"`, "sh",
		filepath.Join(s, "kueue-etc", "upper"), filepath.Join(s, "kueue-etc", "work"), visibilityCerts,
		filepath.Join(opts.kueueBin, "kueue"), "--config=" + kueueConfig, "--kubeconfig=" + kueueKubeconfig,
	}
	ks.Env = []string{"KUBECONFIG=" + kueueKubeconfig}
	if err := startKueue(ctx, s, ks, defaultVariant, false); err != nil {
		return err
	}
	if _, err := start(s, "jobset", filepath.Join(opts.jobsetBin, "jobset"), []string{
		"--config=" + jobsetConfigPath, "--kubeconfig=" + jobsetKubeconfig, "--zap-devel=false",
	}, nil); err != nil {
		return err
	}
	if _, err := start(s, "kube-controller-manager", filepath.Join(opts.kubeBin, "kube-controller-manager"), []string{
		"--kubeconfig=" + filepath.Join(cfgDir, "kube-controller-manager.kubeconfig"),
		"--controllers=*,-nodelifecycle,-nodeipam",
		"--service-account-private-key-file=" + filepath.Join(pki, "sa.key"),
		"--root-ca-file=" + filepath.Join(pki, "ca.crt"),
		"--use-service-account-credentials=false",
		"--leader-elect=false", "--secure-port=0", "--cluster-name=kueuebot-sandbox",
	}, nil); err != nil {
		return err
	}
	if _, err := start(s, "kube-scheduler", filepath.Join(opts.kubeBin, "kube-scheduler"), []string{
		"--kubeconfig=" + filepath.Join(cfgDir, "kube-scheduler.kubeconfig"),
		"--leader-elect=false", "--secure-port=0",
	}, nil); err != nil {
		return err
	}
	st.step("webhooks applied; kueue, jobset, controller-manager, scheduler started")

	if err := applyNodes(ctx, admin); err != nil {
		return err
	}
	st.step("fake nodes registered and Ready")

	if err := waitKueue(ctx, s, ks); err != nil {
		return err
	}
	st.step("kueue readyz ok (webhook server listening)")
	if err := waitHTTP(ctx, s, "jobset", fmt.Sprintf("http://127.0.0.1:%d/readyz", p.jobsetHealth), nil, func(b []byte) bool { return string(b) == "ok" }); err != nil {
		return err
	}
	st.step("jobset readyz ok")

	if opts.visibility {
		if err := waitVisibility(ctx, admin); err != nil {
			return err
		}
		st.step("visibility API available through the aggregator")
	}

	if err := smoke(ctx, admin, s); err != nil {
		return fmt.Errorf("smoke test: %w", err)
	}
	st.step("smoke Job admitted by Kueue and its Pod scheduled")
	if opts.worker {
		if err := startWorker(ctx, opts, admin); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		st.step("MultiKueue worker up, linked (a MultiKueueCluster went Active)")
	}

	env := fmt.Sprintf("KUEUEBOT_SANDBOX=%s\nKUBECONFIG=%s\nSANDBOX_APISERVER=%s\nSANDBOX_KUEUE_WEBHOOK=%s\nSANDBOX_ETCD=%s\nSANDBOX_VISIBILITY=%t\nSANDBOX_KUEUE_CONFIG=%s\n",
		s, filepath.Join(s, "kubeconfig"), server, webhookURL, etcdURL, opts.visibility, defaultVariant)
	if err := writeFile(filepath.Join(s, "env"), []byte(env), 0o644); err != nil {
		return err
	}
	fmt.Printf(`
sandbox is up in %.1fs
  apiserver      %s (loopback only)
  admin          export KUBECONFIG=%s
  users          %s/kubeconfig-{alice,bob,carol,kueuebot}
  tests          export KUEUEBOT_SANDBOX=%s
  audit log      %s
  logs           %s/logs/<component>.log
  env file       %s/env (KUEUEBOT_SANDBOX, KUBECONFIG, ports)
  stop           make sandbox-down
`, time.Since(st.t0).Seconds(), server, filepath.Join(s, "kubeconfig"), s, s, filepath.Join(s, "audit.log"), s, s)
	return nil
}

func ptr[T any](v T) *T { return &v }

// waitVisibility waits until the aggregator reports Kueue's visibility APIService Available.
func waitVisibility(ctx context.Context, c *cluster) error {
	res := gvr("apiregistration.k8s.io", "v1", "apiservices")
	var last string
	for {
		o, err := c.dyn.Resource(res).Get(ctx, "v1beta2.visibility.kueue.x-k8s.io", metav1.GetOptions{})
		if err == nil && hasCondition(o, "Available", "True") {
			return nil
		}
		if err == nil {
			b, _ := json.Marshal(o.Object["status"])
			last = string(b)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("visibility APIService not available: %s", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func pickPorts(worker bool) (ports, error) {
	var p ports
	seen := map[int]bool{}
	for _, dst := range []*int{&p.etcd, &p.etcdPeer, &p.api, &p.webhook, &p.health, &p.visibility, &p.jobsetWebhook, &p.jobsetHealth} {
		for {
			port, err := freePort()
			if err != nil {
				return p, err
			}
			if !seen[port] {
				seen[port] = true
				*dst = port
				break
			}
		}
	}
	if v := os.Getenv("KUEUEBOT_SANDBOX_API_PORT"); v != "" && !worker {
		port, err := strconv.Atoi(v)
		if err != nil {
			return p, fmt.Errorf("KUEUEBOT_SANDBOX_API_PORT: %w", err)
		}
		if err := checkPort(port); err != nil {
			return p, err
		}
		p.api = port
	}
	return p, nil
}

func writeKubeconfig(path, server string, caPEM []byte, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: user}
	cfg.CurrentContext = "sandbox"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return writeFile(path, b, 0o600)
}

// waitHTTP polls url until ok(body) holds, failing early when the component's process died.
func waitHTTP(ctx context.Context, state, name, url string, caPEM []byte, ok func([]byte) bool) error {
	tr := &http.Transport{}
	if caPEM != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	defer tr.CloseIdleConnections()
	var last string
	for {
		if resp, err := hc.Get(url); err == nil {
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && ok(b[:n]) {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, b[:n])
		} else {
			last = err.Error()
		}
		if pid := readPid(state, name); !alive(pid, state) {
			return fmt.Errorf("%s exited; see %s", name, logFile(state, name))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %s", name, url, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func waitCRDs(ctx context.Context, c *cluster, crds []*unstructured.Unstructured) error {
	res := gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	for _, crd := range crds {
		for {
			o, err := c.dyn.Resource(res).Get(ctx, crd.GetName(), metav1.GetOptions{})
			if err == nil && hasCondition(o, "Established", "True") {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established: %w", crd.GetName(), ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	c.mapper.Reset()
	return nil
}

func hasCondition(o *unstructured.Unstructured, typ, status string) bool {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == status {
			return true
		}
	}
	return false
}

// applyNodes registers the fake nodes and writes a Ready status. The TaintNodesByCondition admission
// plugin adds node.kubernetes.io/not-ready on create; with the node lifecycle controller off nothing
// would remove it, so the sandbox does.
func applyNodes(ctx context.Context, c *cluster) error {
	objs, err := decodeYAML([]byte(nodesYAML))
	if err != nil {
		return err
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	for _, o := range objs {
		conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		for _, cd := range conds {
			cd.(map[string]any)["lastHeartbeatTime"] = now
			cd.(map[string]any)["lastTransitionTime"] = now
		}
		_ = unstructured.SetNestedSlice(o.Object, conds, "status", "conditions")
	}
	if err := c.applyAll(ctx, objs); err != nil {
		return err
	}
	for _, o := range objs {
		for {
			n, err := c.kube.CoreV1().Nodes().Get(ctx, o.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			var keep []corev1.Taint
			for _, t := range n.Spec.Taints {
				if t.Key != corev1.TaintNodeNotReady && t.Key != corev1.TaintNodeUnreachable {
					keep = append(keep, t)
				}
			}
			if len(keep) == len(n.Spec.Taints) {
				break
			}
			n.Spec.Taints = keep
			if _, err := c.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsConflict(err) {
				return err
			}
		}
	}
	return nil
}

// smoke proves the whole chain works: a Job in a LocalQueue gets a Workload, Kueue admits it,
// the Job controller creates its Pod and kube-scheduler binds it to a fake node. The objects are
// deleted afterwards (the namespace may take a few seconds to disappear).
func smoke(ctx context.Context, c *cluster, state string) error {
	objs, err := decodeYAML([]byte(smokeYAML))
	if err != nil {
		return err
	}
	if err := c.applyAll(ctx, objs); err != nil {
		return err
	}
	wl := gvr("kueue.x-k8s.io", "v1beta2", "workloads")
	var last string
	for {
		list, err := c.dyn.Resource(wl).Namespace("sandbox-smoke").List(ctx, metav1.ListOptions{})
		if err == nil && len(list.Items) > 0 {
			w := list.Items[0]
			if hasCondition(&w, "Admitted", "True") {
				pods, err := c.kube.CoreV1().Pods("sandbox-smoke").List(ctx, metav1.ListOptions{})
				if err == nil && len(pods.Items) > 0 && pods.Items[0].Spec.NodeName != "" {
					break
				}
				last = "workload admitted, waiting for the Pod to be created and scheduled"
			} else {
				b, _ := json.Marshal(w.Object["status"])
				last = "workload not admitted: " + string(b)
			}
		} else {
			last = "no Workload yet for Job sandbox-smoke/smoke"
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s (logs in %s/logs)", last, state)
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Clean up: Job first (its Pod would be recreated), then force-delete the Pods (no kubelet will
	// ever confirm a graceful deletion), then the queue objects and the namespace.
	bg := metav1.DeletePropagationBackground
	_ = c.kube.BatchV1().Jobs("sandbox-smoke").Delete(ctx, "smoke", metav1.DeleteOptions{PropagationPolicy: &bg})
	_ = c.kube.CoreV1().Pods("sandbox-smoke").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}, metav1.ListOptions{})
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		ri, _, err := c.resource(o)
		if err != nil {
			continue
		}
		if err := ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
			return errors.Join(fmt.Errorf("delete %s %s", o.GetKind(), o.GetName()), err)
		}
	}
	return nil
}
