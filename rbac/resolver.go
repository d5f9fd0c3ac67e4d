package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack"
	utilcache "k8s.io/apimachinery/pkg/util/cache"

	"github.com/kueuebot/kueuebot/config"
)

// ExtraSlackUserID is the impersonated user-extra key that carries the
// Slack user ID, so the API server's audit log ties every read to the Slack
// user who asked.
const ExtraSlackUserID = "kueuebot.io/slack-user-id"

// SlackAPI is the part of the Slack Web API the Resolver uses. *slack.Client
// satisfies it.
type SlackAPI interface {
	GetUserInfoContext(ctx context.Context, user string, options ...slack.GetUserInfoOption) (*slack.User, error)
	GetUserGroupMembersContext(ctx context.Context, userGroup string, options ...slack.GetUserGroupMembersOption) ([]string, error)
}

var _ SlackAPI = (*slack.Client)(nil)

// Reason is the machine-readable cause of a refusal.
type Reason string

// Refusal reasons. Each is a deny-by-default rule.
const (
	// ReasonNoUser: the request carried no Slack user ID, or neither a team
	// nor an enterprise ID.
	ReasonNoUser Reason = "NoUser"
	// ReasonUnknownUser: Slack does not know the user (users.info said
	// user_not_found).
	ReasonUnknownUser Reason = "UnknownUser"
	// ReasonDeleted: the Slack account is deactivated.
	ReasonDeleted Reason = "Deleted"
	// ReasonBot: the caller is a bot or app user (including Slackbot).
	ReasonBot Reason = "Bot"
	// ReasonGuest: the caller is a multi- or single-channel guest.
	ReasonGuest Reason = "Guest"
	// ReasonExternal: the caller belongs to another organisation (Slack
	// Connect) or another workspace than the one that sent the event.
	ReasonExternal Reason = "External"
	// ReasonUnmapped: no users entry matches and email mapping is off (or
	// not allowed for the user's workspace).
	ReasonUnmapped Reason = "Unmapped"
	// ReasonNoVerifiedEmail: email mapping is on but Slack gives no
	// confirmed email for the user.
	ReasonNoVerifiedEmail Reason = "NoVerifiedEmail"
	// ReasonDomainNotAllowed: the email's domain is not in allowedDomains.
	ReasonDomainNotAllowed Reason = "DomainNotAllowed"
	// ReasonInvalidIdentity: the mapping produced a name the bot refuses
	// to impersonate (empty, or a "system:" name).
	ReasonInvalidIdentity Reason = "InvalidIdentity"
)

// RefusedError says the caller is not allowed to use the bot. It is a
// decision, not a failure: callers show Message to the user and log Reason.
type RefusedError struct {
	// Reason is the machine-readable cause.
	Reason Reason
	// Message is polite, user-facing text that says how to get access. It
	// names no Kubernetes identity and no display name.
	Message string
	// SlackUserID is the refused user's ID.
	SlackUserID string
}

// Error implements error.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("rbac: refused Slack user %s: %s", e.SlackUserID, e.Reason)
}

// UserMessage returns the polite text shown to the refused user; it makes
// the refusal reach the user instead of a generic failure notice.
func (e *RefusedError) UserMessage() string { return e.Message }

// IsRefused reports whether err is (or wraps) a *RefusedError and returns it.
func IsRefused(err error) (*RefusedError, bool) {
	var r *RefusedError
	ok := errors.As(err, &r)
	return r, ok
}

// Option configures a Resolver.
type Option func(*Resolver)

// WithClock injects the clock used for cache expiry (tests).
func WithClock(now func() time.Time) Option { return func(r *Resolver) { r.now = now } }

// Resolver turns a Slack user into a Kubernetes Identity. It is safe for
// concurrent use.
type Resolver struct {
	cfg   config.Identity
	slack SlackAPI
	now   func() time.Time

	// cache holds SlackUser -> cached and groups holds a Slack group ID ->
	// groupMembers, each entry for identity.cacheTTL and at most
	// maxCachedUsers / maxCachedGroups entries (least recently used go
	// first), so a workspace's worth of askers cannot grow them unbounded.
	cache  *utilcache.LRUExpireCache
	groups *utilcache.LRUExpireCache
}

// The bounds of the Resolver's caches: far more than the askers and mapped
// Slack groups of one workspace within a cache TTL; an evicted entry only
// costs one more users.info or usergroups.users.list call.
const (
	maxCachedUsers  = 10000
	maxCachedGroups = 1000
)

// clockFunc adapts a func to the caches' clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

type cached struct {
	id      Identity
	refusal *RefusedError
}

type groupMembers map[string]bool

// NewResolver returns a Resolver for the identity section of the config
// (already validated by config.Validate) and a Slack client.
func NewResolver(cfg config.Identity, api SlackAPI, opts ...Option) (*Resolver, error) {
	if api == nil {
		return nil, errors.New("rbac: NewResolver needs a Slack API client")
	}
	r := &Resolver{cfg: cfg, slack: api, now: time.Now}
	for _, o := range opts {
		o(r)
	}
	r.cache = utilcache.NewLRUExpireCacheWithClock(maxCachedUsers, clockFunc(r.now))
	r.groups = utilcache.NewLRUExpireCacheWithClock(maxCachedGroups, clockFunc(r.now))
	return r, nil
}

// Invalidate drops the cached members of a Slack user group and every
// cached resolution (they may include that group's mappings). The bot calls
// it on subteam_members_changed and subteam_updated.
func (r *Resolver) Invalidate(groupID string) {
	r.groups.Remove(groupID)
	r.cache.RemoveAll(func(any) bool { return true })
}

// InvalidateUser drops the cached resolution of one Slack user (for example
// on user_change).
func (r *Resolver) InvalidateUser(userID string) {
	r.cache.RemoveAll(func(k any) bool { return k.(SlackUser).ID == userID })
}

// Resolve maps a Slack user to a Kubernetes Identity. A user the config
// does not allow gets a *RefusedError; any other error is a failure (Slack
// unreachable, rate limited) and is not cached. Resolutions and refusals
// are cached for identity.cacheTTL.
func (r *Resolver) Resolve(ctx context.Context, u SlackUser) (Identity, error) {
	if u.ID == "" || (u.TeamID == "" && u.EnterpriseID == "") {
		return Identity{}, r.refuse(u, ReasonNoUser)
	}
	if v, ok := r.cache.Get(u); ok {
		c := v.(cached)
		if c.refusal != nil {
			ref := *c.refusal
			return Identity{}, &ref
		}
		return c.id.clone(), nil
	}

	id, err := r.resolve(ctx, u)
	var ref *RefusedError
	if err != nil && !errors.As(err, &ref) {
		return Identity{}, err
	}
	r.cache.Add(u, cached{id: id.clone(), refusal: ref}, r.cfg.CacheTTL)
	if ref != nil {
		return Identity{}, err
	}
	return id, nil
}

func (r *Resolver) resolve(ctx context.Context, u SlackUser) (Identity, error) {
	if u.ID == "USLACKBOT" {
		return Identity{}, r.refuse(u, ReasonBot)
	}
	info, err := r.slack.GetUserInfoContext(ctx, u.ID, slack.GetUserInfoOptionIncludeLocale(false))
	if err != nil {
		var se slack.SlackErrorResponse
		if errors.As(err, &se) && (se.Err == "user_not_found" || se.Err == "user_not_visible") {
			return Identity{}, r.refuse(u, ReasonUnknownUser)
		}
		return Identity{}, fmt.Errorf("rbac: users.info for %s: %w", u.ID, err)
	}
	if info.ID != u.ID {
		return Identity{}, fmt.Errorf("rbac: users.info for %s returned user %q", u.ID, info.ID)
	}
	switch {
	case info.Deleted:
		return Identity{}, r.refuse(u, ReasonDeleted)
	case info.IsBot || info.IsAppUser || info.IsWorkflowBot || info.IsConnectorBot:
		return Identity{}, r.refuse(u, ReasonBot)
	case info.IsRestricted || info.IsUltraRestricted || info.IsInvitedUser:
		return Identity{}, r.refuse(u, ReasonGuest)
	case info.IsStranger || !sameOrg(u, info):
		return Identity{}, r.refuse(u, ReasonExternal)
	}

	var id Identity
	if m, ok := r.userMapping(info); ok {
		id = Identity{User: m.User, Groups: slices.Clone(m.Groups), Namespaces: slices.Clone(m.Namespaces)}
	} else {
		var reason Reason
		id, reason = r.emailIdentity(info)
		if reason != "" {
			return Identity{}, r.refuse(u, reason)
		}
	}

	for _, g := range r.cfg.UserGroups {
		member, err := r.isMember(ctx, g, u.ID)
		if err != nil {
			return Identity{}, err
		}
		if member {
			id.Groups = append(id.Groups, g.Groups...)
			id.Namespaces = append(id.Namespaces, g.Namespaces...)
		}
	}
	id.Groups = dedupe(id.Groups)
	id.Namespaces = dedupe(id.Namespaces)
	id.Extra = map[string][]string{ExtraSlackUserID: {u.ID}}
	if err := id.Validate(); err != nil {
		return Identity{}, r.refuse(u, ReasonInvalidIdentity)
	}
	return id, nil
}

// sameOrg checks that users.info agrees with the event about where the user
// belongs: the same workspace, or the same Enterprise Grid org.
func sameOrg(u SlackUser, info *slack.User) bool {
	if u.EnterpriseID != "" && info.Enterprise.EnterpriseID != "" {
		return u.EnterpriseID == info.Enterprise.EnterpriseID
	}
	return info.TeamID == u.TeamID || slices.Contains(info.Enterprise.Teams, u.TeamID)
}

func (r *Resolver) userMapping(info *slack.User) (config.UserMapping, bool) {
	for _, m := range r.cfg.Users {
		if m.SlackUserID != info.ID {
			continue
		}
		if m.TeamID != "" && m.TeamID != info.TeamID {
			continue
		}
		if m.EnterpriseID != "" && m.EnterpriseID != info.Enterprise.EnterpriseID {
			continue
		}
		if m.TeamID == "" && m.EnterpriseID == "" {
			continue // config.Validate rejects this; never match on the user ID alone
		}
		return m, true
	}
	return config.UserMapping{}, false
}

func (r *Resolver) emailIdentity(info *slack.User) (Identity, Reason) {
	e := r.cfg.Email
	if !e.Enabled {
		return Identity{}, ReasonUnmapped
	}
	if len(e.TeamIDs) > 0 && !slices.Contains(e.TeamIDs, info.TeamID) {
		return Identity{}, ReasonUnmapped
	}
	email := strings.ToLower(strings.TrimSpace(info.Profile.Email))
	if email == "" || (e.RequireConfirmed && !info.IsEmailConfirmed) {
		return Identity{}, ReasonNoVerifiedEmail
	}
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") {
		return Identity{}, ReasonNoVerifiedEmail
	}
	if !slices.ContainsFunc(e.AllowedDomains, func(d string) bool { return strings.EqualFold(d, domain) }) {
		return Identity{}, ReasonDomainNotAllowed
	}
	user, err := config.ExecuteUserTemplate(e.UserTemplate, config.EmailTemplateData{
		Email: email, LocalPart: local, Domain: domain, UserID: info.ID, TeamID: info.TeamID,
	})
	if err != nil {
		return Identity{}, ReasonInvalidIdentity
	}
	return Identity{User: user, Groups: slices.Clone(e.Groups), Namespaces: slices.Clone(e.Namespaces)}, ""
}

func (r *Resolver) isMember(ctx context.Context, g config.UserGroupMapping, userID string) (bool, error) {
	v, ok := r.groups.Get(g.SlackGroupID)
	gm, _ := v.(groupMembers)
	if !ok {
		var opts []slack.GetUserGroupMembersOption
		if g.TeamID != "" {
			opts = append(opts, slack.GetUserGroupMembersOptionTeamID(g.TeamID))
		}
		members, err := r.slack.GetUserGroupMembersContext(ctx, g.SlackGroupID, opts...)
		if err != nil {
			return false, fmt.Errorf("rbac: usergroups.users.list for %s: %w", g.SlackGroupID, err)
		}
		gm = make(groupMembers, len(members))
		for _, m := range members {
			gm[m] = true
		}
		r.groups.Add(g.SlackGroupID, gm, r.cfg.CacheTTL)
	}
	return gm[userID], nil
}

func (r *Resolver) refuse(u SlackUser, reason Reason) *RefusedError {
	return &RefusedError{Reason: reason, SlackUserID: u.ID, Message: refusalMessage(reason, r.cfg.RefusalContact)}
}

func refusalMessage(reason Reason, contact string) string {
	var why string
	switch reason {
	case ReasonBot:
		why = "I only answer people, not bots or apps."
	case ReasonDeleted, ReasonNoUser, ReasonUnknownUser:
		why = "I could not confirm your Slack account."
	case ReasonGuest:
		why = "guest accounts can't use me to look at the cluster."
	case ReasonExternal:
		why = "I only answer members of this organisation's workspace."
	case ReasonNoVerifiedEmail:
		why = "your Slack account has no confirmed email address I could match to a cluster identity."
	case ReasonDomainNotAllowed:
		why = "your email domain isn't one this cluster accepts."
	case ReasonUnmapped, ReasonInvalidIdentity:
		why = "your Slack account isn't linked to a Kubernetes identity yet."
	default:
		why = "your Slack account isn't linked to a Kubernetes identity yet."
	}
	return fmt.Sprintf("Sorry, I can't look at the cluster for you: %s To get access, please ask %s.", why, contact)
}

func dedupe(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
