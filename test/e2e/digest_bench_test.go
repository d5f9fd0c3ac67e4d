package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/rbac"
)

// benchNamespaces is how many namespaces the benchmark's Workloads spread
// over (one LocalQueue each, one ClusterQueue for all).
const benchNamespaces = 10

// BenchmarkDigestSandbox times a digest end to end against the sandbox's
// API server, read as the digest's identity (impersonated, paginated LISTs
// of 500) over 5,000 and 20,000 Workloads created directly (no Jobs), and
// reports the requests per digest: a handful per namespace, never one per
// workload. Skipped without the sandbox.
func BenchmarkDigestSandbox(b *testing.B) {
	sb := os.Getenv("KUEUEBOT_SANDBOX")
	if sb == "" {
		b.Skip("KUEUEBOT_SANDBOX is not set: run make sandbox-up and set KUEUEBOT_SANDBOX=.sandbox")
	}
	if !filepath.IsAbs(sb) {
		sb = filepath.Join(repoRoot(), sb)
	}
	for _, n := range []int{5000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			namespaces := benchCluster(b, sb, n)
			const user = "digest-bench"
			digestRBAC(b, sb, user, namespaces)
			d := config.Digest{Name: "bench", User: user, Namespaces: namespaces}
			base := botRESTConfig(b, sb, digestUserAgent+"-bench")
			var requests, objects, pending int
			var listing, building time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				// A new reader each time: new clients and discovery, as
				// the first digest of an identity.
				ex := &explain.Explainer{Reader: &explain.KubeReader{Base: base, Timeout: 30 * time.Second}}
				res, err := ex.Digest(b.Context(), rbac.Identity{User: user}, explain.DigestQuery{Name: d.Name, Scope: digest.Scope{Namespaces: namespaces}})
				if err != nil {
					b.Fatal(err)
				}
				listing += res.Read
				building += time.Since(t0) - res.Read
				requests, objects, pending = res.Stats.Requests, res.Stats.Objects, res.Digest.Totals.Pending
				if got := res.Digest.Totals.Pending + res.Digest.Totals.Admitted; got != n {
					b.Fatalf("%d Workloads pending or admitted, want %d", got, n)
				}
			}
			b.ReportMetric(listing.Seconds()/float64(b.N), "list-s/op")
			b.ReportMetric(building.Seconds()/float64(b.N), "build-s/op")
			b.ReportMetric(float64(requests), "requests/op")
			b.ReportMetric(float64(objects), "objects/op")
			b.ReportMetric(float64(pending), "pending/op")
		})
	}
}

// benchCluster creates n Workloads (directly, no Jobs) in benchNamespaces
// namespaces whose LocalQueues point at one small ClusterQueue, so most stay
// pending; all deleted when the benchmark ends.
func benchCluster(b *testing.B, sb string, n int) []string {
	b.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(sb, "kubeconfig"))
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	kq, err := kueueclient.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	cs := adminClient(b, sb)
	ctx := context.Background()
	prefix := fmt.Sprintf("bench-%d-", n)
	flavor := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: prefix + "flavor"}}
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "cq"},
		Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: kueue.ResourceFlavorReference(flavor.Name), Resources: []kueue.ResourceQuota{
					{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("10")},
				}}},
			}},
		},
	}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, flavor, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var namespaces []string
	for i := range benchNamespaces {
		ns := fmt.Sprintf("%sns-%d", prefix, i)
		namespaces = append(namespaces, ns)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "lq", Namespace: ns}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq.Name)}}
		if _, err := kq.KueueV1beta2().LocalQueues(ns).Create(ctx, lq, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() {
		for _, ns := range namespaces {
			_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
		_ = kq.KueueV1beta2().ClusterQueues().Delete(context.Background(), cq.Name, metav1.DeleteOptions{})
		_ = kq.KueueV1beta2().ResourceFlavors().Delete(context.Background(), flavor.Name, metav1.DeleteOptions{})
	})

	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 32 {
		wg.Go(func() {
			for i := range work {
				ns := namespaces[i%benchNamespaces]
				wl := &kueue.Workload{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("wl-%06d", i), Namespace: ns},
					Spec: kueue.WorkloadSpec{
						QueueName: "lq",
						PodSets: []kueue.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
							RestartPolicy: corev1.RestartPolicyNever,
							Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
							}}},
						}}}},
						Priority: ptr.To[int32](int32(i % 3)),
					},
				}
				if _, err := kq.KueueV1beta2().Workloads(ns).Create(ctx, wl, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	b.Logf("created %d Workloads in %s", n, time.Since(start).Round(time.Second))
	return namespaces
}
