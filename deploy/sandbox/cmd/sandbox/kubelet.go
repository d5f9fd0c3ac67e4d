package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// kubeletStep writes the status of Pods as the kubelet of their node would. The sandbox has no
// kubelet (nothing runs containers), so bound Pods stay Pending with no container statuses; this
// step stands in for the kubelet's one interface, the pods/status subresource, and everything
// after it (the Job controller counting ready or succeeded Pods, Kueue's PodsReady and Finished
// conditions) is the real controllers reacting.
type kubeletStep struct {
	Namespace string `json:"namespace"`
	// Selector is a label selector of the Pods (e.g. batch.kubernetes.io/job-name=train).
	Selector string `json:"selector"`
	// State is what the containers do: Running (started and ready), ImagePullBackOff
	// (the image cannot be pulled), Succeeded or Failed (exited 0 or 1).
	State string `json:"state"`
	// Count is how many Pods must be bound to a node before the status is written (default 1);
	// only bound Pods get a status, as only a node's kubelet writes one.
	Count int `json:"count,omitempty"`
}

func runKubelet(ctx context.Context, c *cluster, k kubeletStep, bound time.Duration) error {
	want := k.Count
	if want == 0 {
		want = 1
	}
	deadline := time.Now().Add(bound)
	var pods []corev1.Pod
	for {
		list, err := c.kube.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{LabelSelector: k.Selector})
		if err != nil {
			return err
		}
		pods = pods[:0]
		for _, p := range list.Items {
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				pods = append(pods, p)
			}
		}
		if len(pods) >= want {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kubelet: %d of %d pod(s) %q in %s bound to a node after %s", len(pods), want, k.Selector, k.Namespace, bound)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, p := range pods {
		st, err := kubeletStatus(&p, k.State)
		if err != nil {
			return err
		}
		b, err := json.Marshal(map[string]any{"status": st})
		if err != nil {
			return err
		}
		if _, err := c.kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, b,
			metav1.PatchOptions{FieldManager: "sandbox-kubelet"}, "status"); err != nil {
			return fmt.Errorf("kubelet: pod %s status: %w", p.Name, err)
		}
	}
	return nil
}

// kubeletStatus is the PodStatus a kubelet reports for a Pod in state.
func kubeletStatus(p *corev1.Pod, state string) (*corev1.PodStatus, error) {
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	cond := func(t corev1.PodConditionType, ok bool, reason string) corev1.PodCondition {
		s := corev1.ConditionFalse
		if ok {
			s = corev1.ConditionTrue
		}
		return corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: now}
	}
	st := &corev1.PodStatus{HostIP: "127.0.0.1", PodIP: "10.244.0.10", StartTime: &now,
		HostIPs: []corev1.HostIP{{IP: "127.0.0.1"}}, PodIPs: []corev1.PodIP{{IP: "10.244.0.10"}}, QOSClass: p.Status.QOSClass}
	var ready bool
	var reason string
	for _, ctr := range p.Spec.Containers {
		cs := corev1.ContainerStatus{Name: ctr.Name, Image: ctr.Image}
		switch state {
		case "Running":
			cs.Ready, cs.Started = true, ptr(true)
			cs.ImageID = ctr.Image
			cs.ContainerID = "containerd://sandbox-" + p.Name + "-" + ctr.Name
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
			st.Phase, ready = corev1.PodRunning, true
		case "ImagePullBackOff":
			cs.Started = ptr(false)
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
				Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: failed to pull and unpack image %q: not found", ctr.Image, ctr.Image)}
			st.Phase, reason = corev1.PodPending, "ContainersNotReady"
		case "Succeeded", "Failed":
			code, why := int32(0), "Completed"
			st.Phase, reason = corev1.PodSucceeded, "PodCompleted"
			if state == "Failed" {
				code, why = 1, "Error"
				st.Phase, reason = corev1.PodFailed, "PodFailed"
			}
			cs.Started = ptr(false)
			cs.ImageID = ctr.Image
			cs.ContainerID = "containerd://sandbox-" + p.Name + "-" + ctr.Name
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: why, StartedAt: now, FinishedAt: now,
				ContainerID: cs.ContainerID}
		default:
			return nil, fmt.Errorf("kubelet: unknown state %q (Running, ImagePullBackOff, Succeeded, Failed)", state)
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	st.Conditions = []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, true, ""),
		cond(corev1.PodInitialized, true, ""),
		cond(corev1.ContainersReady, ready, reason),
		cond(corev1.PodReady, ready, reason),
		cond(corev1.PodScheduled, true, ""),
	}
	return st, nil
}
