package fetch

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
)

// ParseKueueConfiguration reads Kueue's Configuration (the
// controller_manager_config.yaml of its manager ConfigMap) with Kueue's own
// types and defaults, and keeps what decides whether Kueue manages a job.
func ParseKueueConfiguration(data []byte) (*diagnose.KueueConfig, error) {
	var cfg configapi.Configuration
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("kueue configuration: %w", err)
	}
	if cfg.Kind != "" && cfg.Kind != "Configuration" {
		return nil, fmt.Errorf("kueue configuration: kind %q, want Configuration", cfg.Kind)
	}
	configapi.SetDefaults_Configuration(&cfg)
	out := &diagnose.KueueConfig{ManagedJobsNamespaceSelector: cfg.ManagedJobsNamespaceSelector}
	if cfg.Integrations != nil {
		out.Frameworks = append([]string(nil), cfg.Integrations.Frameworks...)
	}
	if w := cfg.WaitForPodsReady; w != nil {
		out.WaitForPodsReady = &diagnose.WaitForPodsReady{Timeout: w.Timeout.Duration}
		if w.RecoveryTimeout != nil {
			d := w.RecoveryTimeout.Duration
			out.WaitForPodsReady.RecoveryTimeout = &d
		}
		if rs := w.RequeuingStrategy; rs != nil && rs.BackoffLimitCount != nil {
			n := *rs.BackoffLimitCount
			out.WaitForPodsReady.BackoffLimitCount = &n
		}
	}
	return out, nil
}

// KueueConfigMap reads Kueue's Configuration from key of ConfigMap
// namespace/name with cs (the bot's own identity), caching it for ttl. Its
// result is meant for Fetcher.KueueConfig.
func KueueConfigMap(cs kubernetes.Interface, namespace, name, key string, ttl time.Duration) func(context.Context) (*diagnose.KueueConfig, error) {
	var (
		mu     sync.Mutex
		cached *diagnose.KueueConfig
		at     time.Time
	)
	return func(ctx context.Context) (*diagnose.KueueConfig, error) {
		mu.Lock()
		defer mu.Unlock()
		if cached != nil && time.Since(at) < ttl {
			return cached, nil
		}
		cm, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		data, ok := cm.Data[key]
		if !ok {
			return nil, fmt.Errorf("ConfigMap %s/%s has no key %q", namespace, name, key)
		}
		kc, err := ParseKueueConfiguration([]byte(data))
		if err != nil {
			return nil, err
		}
		cached, at = kc, time.Now()
		return kc, nil
	}
}

// kueueConfigReader is implemented by sources that may read Kueue's
// Configuration.
type kueueConfigReader interface {
	kueueConfig(ctx context.Context) (*diagnose.KueueConfig, error)
}

func (s *liveSource) kueueConfig(ctx context.Context) (*diagnose.KueueConfig, error) {
	if s.f.KueueConfig == nil {
		return nil, nil
	}
	return doAside(ctx, s, s.f.KueueConfig)
}
