package e2e

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestBotReadsKueueConfigThroughItsRole runs in every sandbox
// configuration: with kube.kueueConfig pointing at Kueue's manager
// ConfigMap (kueue-system/kueue-manager-config, where a real install has
// it and the sandbox publishes the Configuration Kueue runs with), the bot
// reads it through exactly the Role rbac.BotKueueConfigRole renders (the
// chart and `kueuebot rbac` render the same), and says for certain that
// Kueue does not manage a job in kube-system, which Kueue's default
// managedJobsNamespaceSelector leaves out in every configuration.
func TestBotReadsKueueConfigThroughItsRole(t *testing.T) {
	sb := sandbox(t)
	admin := adminClient(t, sb)
	ctx := t.Context()
	const ns, name = "kube-system", "kueuebot-e2e-outside"
	view := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "kueuebot-e2e-alice-view", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, view, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.RbacV1().RoleBindings(ns).Delete(context.Background(), view.Name, metav1.DeleteOptions{})
	})
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "user-queue"}},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](1), Completions: ptr.To[int32](1), BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
			}},
		},
	}
	if _, err := admin.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.BatchV1().Jobs(ns).Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	})

	a := newBotWith(t, sb, strings.Replace(botConfig, "  clusterScopedReads: bot\n",
		"  clusterScopedReads: bot\n  kueueConfig: {namespace: kueue-system, configMap: kueue-manager-config, key: controller_manager_config.yaml}\n", 1))
	got := ask(t, a, "U0000ALICE", "why is "+name+" -n "+ns+" waiting?")
	for _, want := range []string{"WorkloadMissing", "Kueue does not manage jobs in namespace " + ns, "managedJobsNamespaceSelector"} {
		if !strings.Contains(got, want) {
			t.Errorf("alice's answer lacks %q:\n%s", want, got)
		}
	}
}
