package rbac

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kueuebot/kueuebot/config"
)

// ErrEmptyIdentity is returned when asked to act for an identity with no
// user name: the bot never falls back to its own identity.
var ErrEmptyIdentity = errors.New("rbac: empty identity: refusing to read without a caller identity")

// Validate checks that the identity can be impersonated safely: a non-empty
// user, no "system:" user or group (system:masters included), no blank
// group, and extra keys with values.
func (id Identity) Validate() error {
	if strings.TrimSpace(id.User) == "" {
		return ErrEmptyIdentity
	}
	if isSystem(id.User) {
		return fmt.Errorf("rbac: refusing to impersonate reserved user %q", id.User)
	}
	for _, g := range id.Groups {
		if strings.TrimSpace(g) == "" {
			return errors.New("rbac: refusing to impersonate an empty group name")
		}
		if isSystem(g) {
			return fmt.Errorf("rbac: refusing to impersonate reserved group %q", g)
		}
	}
	for k, v := range id.Extra {
		if k == "" || len(v) == 0 {
			return fmt.Errorf("rbac: impersonated extra %q has no value", k)
		}
	}
	return nil
}

// SlackUserID returns the Slack user ID the identity carries in Extra.
func (id Identity) SlackUserID() string {
	if v := id.Extra[ExtraSlackUserID]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (id Identity) clone() Identity {
	out := Identity{User: id.User, Groups: slices.Clone(id.Groups), Namespaces: slices.Clone(id.Namespaces)}
	if id.Extra != nil {
		out.Extra = make(map[string][]string, len(id.Extra))
		for k, v := range maps.All(id.Extra) {
			out.Extra[k] = slices.Clone(v)
		}
	}
	return out
}

// isSystem matches Kubernetes' reserved names. The API server compares
// names exactly, but be strict about case and padding anyway.
func isSystem(name string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(name)), config.SystemPrefix)
}
