package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"
)

var (
	reUserID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	reTeamID    = regexp.MustCompile(`^T[A-Z0-9]{2,}$`)
	reEntID     = regexp.MustCompile(`^E[A-Z0-9]{2,}$`)
	reGroupID   = regexp.MustCompile(`^S[A-Z0-9]{2,}$`)
	reChannelID = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
	reNamespace = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	reDomain    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
)

// SystemPrefix starts Kubernetes' reserved user and group names
// (system:masters, system:admin, service accounts). kueuebot never
// impersonates them.
const SystemPrefix = "system:"

// Validate checks everything that does not depend on the subcommand and
// returns one error listing every problem, each naming its key and saying
// what to change. Slack credentials are checked only when set; RequireSlack
// checks that they are present.
func (c *Config) Validate() error {
	var errs errList
	c.validateSlack(&errs, false)
	c.validateKube(&errs)
	c.validateIdentity(&errs)
	c.validateClusters(&errs)
	c.validateDigests(&errs)
	c.validateTriage(&errs)
	c.validateNotify(&errs)
	c.validateLanguage(&errs)
	c.validateOps(&errs)
	return errs.err()
}

// RequireSlack checks that the credentials the configured Slack mode needs
// are present (for `kueuebot serve`).
func (c *Config) RequireSlack() error {
	var errs errList
	c.validateSlack(&errs, true)
	return errs.err()
}

func (c *Config) validateSlack(errs *errList, require bool) {
	s := c.Slack
	checkToken := func(key string, v Secret, prefix, env string) {
		switch {
		case v.IsZero():
			if require {
				errs.addf(key, "required; set it in the file or with %s_%s", EnvPrefix, env)
			}
		case !strings.HasPrefix(v.Reveal(), prefix):
			errs.addf(key, "must start with %q; check that the right token is in the right key", prefix)
		}
	}
	checkToken("slack.botToken", s.BotToken, "xoxb-", "SLACK_BOTTOKEN")
	switch s.Mode {
	case ModeSocket:
		checkToken("slack.appToken", s.AppToken, "xapp-", "SLACK_APPTOKEN")
	case ModeHTTP:
		if require && s.SigningSecret.IsZero() {
			errs.addf("slack.signingSecret", "required in http mode; set it with %s_SLACK_SIGNINGSECRET", EnvPrefix)
		}
		if s.ListenAddr == "" {
			errs.addf("slack.listenAddr", "required in http mode, e.g. \":3000\"")
		}
	default:
		errs.addf("slack.mode", "got %q, want %q or %q", s.Mode, ModeSocket, ModeHTTP)
	}
	if s.APIURL != "" {
		u, err := url.Parse(s.APIURL)
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(u.Path, "/"):
			errs.addf("slack.apiURL", "got %q, want an http(s) URL ending in \"/\", e.g. \"https://slack.com/api/\"", s.APIURL)
		case u.Scheme == "http" && !isLoopback(u.Hostname()):
			errs.addf("slack.apiURL", "got %q: use https (the tokens travel in every call); plain http is accepted only for a loopback address such as 127.0.0.1", s.APIURL)
		}
	}
	switch {
	case require: // checked by Validate already
	case s.Replies == RepliesEphemeral, s.Replies == RepliesThread:
	default:
		errs.addf("slack.replies", "got %q, want %q (answers in channels only for the asker, who can share them) or %q (in the thread, for everyone)", s.Replies, RepliesEphemeral, RepliesThread)
	}
}

// isLoopback reports whether host is localhost or a loopback IP.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) validateKube(errs *errList) {
	k := c.Kube
	if k.RequestTimeout <= 0 || k.RequestTimeout > 5*time.Minute {
		errs.addf("kube.requestTimeout", "got %s, want a duration between 1s and 5m, e.g. \"10s\"", k.RequestTimeout)
	}
	switch k.ClusterScopedReads {
	case ClusterScopedCaller, ClusterScopedBot:
	default:
		errs.addf("kube.clusterScopedReads", "got %q, want %q (read quota objects as the caller) or %q (as the bot)",
			k.ClusterScopedReads, ClusterScopedCaller, ClusterScopedBot)
	}
	if k.MaxNamespaces < 1 || k.MaxNamespaces > 1000 {
		errs.addf("kube.maxNamespaces", "got %d, want 1..1000", k.MaxNamespaces)
	}
	if k.DiscoveryConcurrency < 1 || k.DiscoveryConcurrency > 64 {
		errs.addf("kube.discoveryConcurrency", "got %d, want 1..64", k.DiscoveryConcurrency)
	}
	if kc := k.KueueConfig; kc.Enabled() {
		if !reNamespace.MatchString(kc.Namespace) {
			errs.addf("kube.kueueConfig.namespace", "got %q, want Kueue's namespace, e.g. \"kueue-system\"", kc.Namespace)
		}
		if !reDomain.MatchString(kc.ConfigMap) && !reNamespace.MatchString(kc.ConfigMap) {
			errs.addf("kube.kueueConfig.configMap", "got %q, want a ConfigMap name, e.g. \"kueue-manager-config\" (empty turns the read off)", kc.ConfigMap)
		}
		if kc.Key == "" {
			errs.addf("kube.kueueConfig.key", "required when kube.kueueConfig.configMap is set, e.g. \"controller_manager_config.yaml\"")
		}
	}
}

func (c *Config) validateIdentity(errs *errList) { validateIdentity(errs, "identity", c.Identity) }

// validateIdentity checks one identity mapping; prefix is its key
// ("identity", "clusters[0].identity").
func validateIdentity(errs *errList, prefix string, id Identity) {
	seen := map[string]int{}
	for i, u := range id.Users {
		key := fmt.Sprintf("%s.users[%d]", prefix, i)
		if !reUserID.MatchString(u.SlackUserID) {
			errs.addf(key+".slackUserID", "got %q, want a Slack user ID such as U012AB3CD (from the user's profile, \"Copy member ID\"); display names are never used", u.SlackUserID)
		}
		if u.TeamID == "" && u.EnterpriseID == "" {
			errs.addf(key+".teamID", "set teamID (T...) or enterpriseID (E...) so the mapping cannot match a user of another workspace")
		}
		if u.TeamID != "" && !reTeamID.MatchString(u.TeamID) {
			errs.addf(key+".teamID", "got %q, want a Slack team ID such as T012AB3CD", u.TeamID)
		}
		if u.EnterpriseID != "" && !reEntID.MatchString(u.EnterpriseID) {
			errs.addf(key+".enterpriseID", "got %q, want a Slack enterprise ID such as E012AB3CD", u.EnterpriseID)
		}
		k := u.SlackUserID + "/" + u.TeamID + "/" + u.EnterpriseID
		if j, dup := seen[k]; dup {
			errs.addf(key+".slackUserID", "%q is already mapped by %s.users[%d]; keep one mapping", u.SlackUserID, prefix, j)
		}
		seen[k] = i
		checkK8sName(errs, key+".user", u.User, true)
		checkGroups(errs, key+".groups", u.Groups)
		checkNamespaces(errs, key+".namespaces", u.Namespaces)
	}

	e := id.Email
	if e.Enabled {
		if len(e.AllowedDomains) == 0 {
			errs.addf(prefix+".email.allowedDomains", "required when email mapping is enabled, e.g. [\"example.com\"]")
		}
		for i, d := range e.AllowedDomains {
			if !reDomain.MatchString(strings.ToLower(d)) {
				errs.addf(fmt.Sprintf("%s.email.allowedDomains[%d]", prefix, i), "got %q, want a domain such as example.com", d)
			}
		}
		for i, t := range e.TeamIDs {
			if !reTeamID.MatchString(t) {
				errs.addf(fmt.Sprintf("%s.email.teamIDs[%d]", prefix, i), "got %q, want a Slack team ID such as T012AB3CD", t)
			}
		}
		if _, err := ExecuteUserTemplate(e.UserTemplate, EmailTemplateData{
			Email: "jane.doe@example.com", LocalPart: "jane.doe", Domain: "example.com", UserID: "U012AB3CD", TeamID: "T012AB3CD",
		}); err != nil {
			errs.addf(prefix+".email.userTemplate", "%v; use fields .Email, .LocalPart, .Domain, .UserID, .TeamID, e.g. \"oidc:{{.Email}}\"", err)
		}
		checkGroups(errs, prefix+".email.groups", e.Groups)
		checkNamespaces(errs, prefix+".email.namespaces", e.Namespaces)
	}

	seenG := map[string]int{}
	for i, g := range id.UserGroups {
		key := fmt.Sprintf("%s.userGroups[%d]", prefix, i)
		if !reGroupID.MatchString(g.SlackGroupID) {
			errs.addf(key+".slackGroupID", "got %q, want a Slack user group ID such as S012AB3CD", g.SlackGroupID)
		}
		if j, dup := seenG[g.SlackGroupID]; dup {
			errs.addf(key+".slackGroupID", "%q is already mapped by %s.userGroups[%d]; merge them", g.SlackGroupID, prefix, j)
		}
		seenG[g.SlackGroupID] = i
		if g.TeamID != "" && !reTeamID.MatchString(g.TeamID) {
			errs.addf(key+".teamID", "got %q, want a Slack team ID such as T012AB3CD", g.TeamID)
		}
		if len(g.Groups) == 0 && len(g.Namespaces) == 0 {
			errs.addf(key, "maps to nothing; set groups and/or namespaces")
		}
		checkGroups(errs, key+".groups", g.Groups)
		checkNamespaces(errs, key+".namespaces", g.Namespaces)
	}
	if strings.TrimSpace(id.RefusalContact) == "" {
		errs.addf(prefix+".refusalContact", "required: refused users are told whom to ask, e.g. \"#platform-help\"")
	}
	if id.CacheTTL <= 0 || id.CacheTTL > time.Hour {
		errs.addf(prefix+".cacheTTL", "got %s, want a duration between 1s and 1h, e.g. \"5m\"", id.CacheTTL)
	}
}

func checkK8sName(errs *errList, key, v string, required bool) {
	switch {
	case v == "":
		if required {
			errs.addf(key, "required: the Kubernetes user name to impersonate")
		}
	case strings.HasPrefix(v, SystemPrefix):
		errs.addf(key, "%q is a reserved system identity; kueuebot never impersonates %q names", v, SystemPrefix)
	case strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\r\t"):
		errs.addf(key, "%q has surrounding or control whitespace", v)
	}
}

func checkGroups(errs *errList, key string, groups []string) {
	for i, g := range groups {
		k := fmt.Sprintf("%s[%d]", key, i)
		if g == "" {
			errs.addf(k, "empty group name")
			continue
		}
		checkK8sName(errs, k, g, false)
	}
}

func checkNamespaces(errs *errList, key string, nss []string) {
	for i, ns := range nss {
		if !reNamespace.MatchString(ns) {
			errs.addf(fmt.Sprintf("%s[%d]", key, i), "got %q, want a namespace name (lower-case DNS label)", ns)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(nss)))) != len(nss) {
		errs.addf(key, "lists a namespace twice")
	}
}

// ExecuteUserTemplate renders an email user template. It fails on unknown
// fields and on an empty result.
func ExecuteUserTemplate(tmpl string, data EmailTemplateData) (string, error) {
	t, err := template.New("userTemplate").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("execute: %w", err)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("template %q renders an empty user name", tmpl)
	}
	return b.String(), nil
}
