// Package prefs keeps the language each Slack user asked kueuebot to
// answer in, in one ConfigMap of the bot's namespace (rbac.LangConfigMapName),
// read and written as the bot: the Role grants get and update on that name
// only. Its data maps a Slack user ID to a language code ("U0123": "fr").
package prefs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// MaxUsers bounds the users the ConfigMap remembers: a Slack user ID and a
// code take under 20 bytes, so 20,000 stay far under the API server's
// 1 MiB per object. A new user past it is refused (ErrFull); changing or
// forgetting a language always goes through.
const MaxUsers = 20000

// ErrFull is returned when the store cannot remember another user.
var ErrFull = errors.New("prefs: the language store is full")

// DefaultTTL is how long Store trusts its copy of the ConfigMap before it
// reads it again (another replica may have written it).
const DefaultTTL = 30 * time.Second

// maxAttempts bounds the retries of a write that conflicts.
const maxAttempts = 10

// Store keeps users' languages in the ConfigMap rbac.LangConfigMapName of
// Namespace. Writes are optimistic: a conflict (another replica wrote
// first) re-reads the ConfigMap and applies the change again. It
// implements bot.LangPrefs.
type Store struct {
	Client    kubernetes.Interface
	Namespace string
	// TTL is how long a read is trusted; zero: DefaultTTL.
	TTL time.Duration

	mu     sync.Mutex
	cm     *corev1.ConfigMap
	exists bool
	readAt time.Time
}

// Lang implements bot.LangPrefs.
func (s *Store) Lang(ctx context.Context, user string) (i18n.Lang, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ttl := s.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if s.cm == nil || time.Since(s.readAt) >= ttl {
		if err := s.read(ctx); err != nil {
			return i18n.English, false, err
		}
	}
	code, ok := s.cm.Data[user]
	if !ok {
		return i18n.English, false, nil
	}
	l, ok := i18n.Parse(code)
	return l, ok, nil
}

// SetLang implements bot.LangPrefs: it remembers l for user, or forgets
// their choice when ok is false.
func (s *Store) SetLang(ctx context.Context, user string, l i18n.Lang, ok bool) error {
	if user == "" {
		return errors.New("prefs: no Slack user")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 1; ; attempt++ {
		if attempt > 1 || s.cm == nil {
			if err := s.read(ctx); err != nil {
				return err
			}
		}
		next := s.cm.DeepCopy()
		if next.Data == nil {
			next.Data = map[string]string{}
		}
		old, had := next.Data[user]
		switch {
		case !ok && !had, ok && old == l.String():
			return nil
		case !ok:
			delete(next.Data, user)
		case !had && len(next.Data) >= MaxUsers:
			return ErrFull
		default:
			next.Data[user] = l.String()
		}
		var written *corev1.ConfigMap
		var err error
		cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
		if s.exists {
			written, err = cms.Update(ctx, next, metav1.UpdateOptions{})
		} else {
			written, err = cms.Create(ctx, next, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = apierrors.NewConflict(corev1.Resource("configmaps"), next.Name, err)
			}
		}
		if apierrors.IsConflict(err) && attempt < maxAttempts {
			continue
		}
		if err != nil {
			s.cm = nil
			return fmt.Errorf("prefs: ConfigMap %s/%s: %w", s.Namespace, rbac.LangConfigMapName, err)
		}
		s.cm, s.exists, s.readAt = written, true, time.Now()
		return nil
	}
}

// read gets the ConfigMap; a missing one is empty (created on the first
// write). Called with mu held.
func (s *Store) read(ctx context.Context) error {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, rbac.LangConfigMapName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s.cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: rbac.LangConfigMapName, Namespace: s.Namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "kueuebot", "app.kubernetes.io/component": "language-preferences"}}}
		s.exists = false
	case err != nil:
		return fmt.Errorf("prefs: ConfigMap %s/%s: %w", s.Namespace, rbac.LangConfigMapName, err)
	default:
		s.cm, s.exists = cm, true
	}
	s.readAt = time.Now()
	return nil
}
