package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func TestPodRequestsLikeKubernetes(t *testing.T) {
	rl := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	c := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want map[corev1.ResourceName]int64
	}{
		{name: "containers add up; limits stand in for missing requests",
			spec: corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "1"), nil), c(nil, rl("cpu", "500m", "memory", "1Gi"))}},
			want: map[corev1.ResourceName]int64{"cpu": 1500, "memory": 1 << 30}},
		{name: "the largest init container wins over smaller apps; sidecars add",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					{Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}, RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)},
					c(rl("cpu", "3"), nil),
				},
				Containers: []corev1.Container{c(rl("cpu", "1"), nil)},
			},
			want: map[corev1.ResourceName]int64{"cpu": 4000}},
		{name: "pod-level resources replace the containers' sum",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: rl("cpu", "4", "memory", "8Gi")},
				Containers: []corev1.Container{c(rl("cpu", "1", "memory", "1Gi"), nil), c(rl("cpu", "1"), nil)},
			},
			want: map[corev1.ResourceName]int64{"cpu": 4000, "memory": 8 << 30}},
		{name: "overhead is added",
			spec: corev1.PodSpec{Containers: []corev1.Container{c(rl("cpu", "1"), nil)}, Overhead: rl("cpu", "250m")},
			want: map[corev1.ResourceName]int64{"cpu": 1250}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, podRequests(&tc.spec)); diff != "" {
				t.Errorf("podRequests (-want +got):\n%s", diff)
			}
		})
	}
}
