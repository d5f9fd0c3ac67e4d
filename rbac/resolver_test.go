package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/config"
)

// fakeSlack is a Slack Web API on 127.0.0.1 serving users.info and
// usergroups.users.list from Slack's documented payload shapes.
type fakeSlack struct {
	mu     sync.Mutex
	users  map[string]map[string]any // user ID -> users.info "user" object
	groups map[string][]string       // group ID -> member IDs
	fail   bool                      // answer 500 to everything
	calls  map[string]int            // method -> count
}

func newFakeSlack(t *testing.T) (*fakeSlack, *slack.Client) {
	t.Helper()
	f := &fakeSlack{users: map[string]map[string]any{}, groups: map[string][]string{}, calls: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, slack.New("xoxb-test-token", slack.OptionAPIURL(srv.URL+"/api/"))
}

func (f *fakeSlack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	f.calls[method]++
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.FormValue("token") != "xoxb-test-token" && r.Header.Get("Authorization") != "Bearer xoxb-test-token" {
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	if f.fail {
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	switch method {
	case "users.info":
		u, ok := f.users[r.FormValue("user")]
		if !ok {
			writeJSON(w, map[string]any{"ok": false, "error": "user_not_found"})
			return
		}
		writeJSON(w, map[string]any{"ok": true, "user": u})
	case "usergroups.users.list":
		m, ok := f.groups[r.FormValue("usergroup")]
		if !ok {
			writeJSON(w, map[string]any{"ok": false, "error": "no_such_subteam"})
			return
		}
		writeJSON(w, map[string]any{"ok": true, "users": m})
	default:
		writeJSON(w, map[string]any{"ok": false, "error": "unknown_method"})
	}
}

func (f *fakeSlack) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func (f *fakeSlack) set(fn func(f *fakeSlack)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// slackUser builds a users.info "user" object; mods flip fields.
func slackUser(id, team string, mods map[string]any) map[string]any {
	u := map[string]any{
		"id": id, "team_id": team, "name": "display-" + id, "real_name": "Real " + id,
		"deleted": false, "is_bot": false, "is_restricted": false, "is_ultra_restricted": false,
		"is_stranger": false, "is_email_confirmed": true,
		"profile": map[string]any{"email": strings.ToLower(id) + "@example.com", "display_name": "admin"},
	}
	for k, v := range mods {
		u[k] = v
	}
	return u
}

const (
	team  = "T0000ACME1"
	other = "T0000OTHER"
)

func testIdentityConfig() config.Identity {
	c := config.Default().Identity
	c.RefusalContact = "#platform-help"
	c.CacheTTL = time.Minute
	c.Users = []config.UserMapping{
		{SlackUserID: "U0000ALICE", TeamID: team, User: "alice", Groups: []string{"team-a"}, Namespaces: []string{"team-a"}},
		{SlackUserID: "U00000BOB", TeamID: team, User: "bob"},
		{SlackUserID: "U0000CAROL", TeamID: other, User: "carol"},
	}
	c.UserGroups = []config.UserGroupMapping{
		{SlackGroupID: "S00MLTEAM", Groups: []string{"ml", "team-a"}, Namespaces: []string{"ml", "team-a"}},
	}
	return c
}

func TestResolve(t *testing.T) {
	emailCfg := func(mod func(*config.EmailMapping)) func(*config.Identity) {
		return func(c *config.Identity) {
			c.Email = config.EmailMapping{Enabled: true, UserTemplate: "oidc:{{.Email}}", AllowedDomains: []string{"Example.com"}, RequireConfirmed: true, Groups: []string{"employees"}}
			if mod != nil {
				mod(&c.Email)
			}
		}
	}
	extra := func(id string) map[string][]string { return map[string][]string{ExtraSlackUserID: {id}} }
	tests := []struct {
		name       string
		cfg        func(*config.Identity)
		users      []map[string]any
		groups     map[string][]string
		caller     SlackUser
		want       Identity
		wantReason Reason
		wantErr    bool
	}{
		{
			name:   "static mapping",
			users:  []map[string]any{slackUser("U0000ALICE", team, nil)},
			caller: SlackUser{ID: "U0000ALICE", TeamID: team},
			want:   Identity{User: "alice", Groups: []string{"team-a"}, Namespaces: []string{"team-a"}, Extra: extra("U0000ALICE")},
		},
		{
			name:   "static mapping plus user group, deduplicated",
			users:  []map[string]any{slackUser("U0000ALICE", team, nil)},
			groups: map[string][]string{"S00MLTEAM": {"U0000ALICE", "U0000OTHER"}},
			caller: SlackUser{ID: "U0000ALICE", TeamID: team},
			want:   Identity{User: "alice", Groups: []string{"team-a", "ml"}, Namespaces: []string{"team-a", "ml"}, Extra: extra("U0000ALICE")},
		},
		{
			name:   "display name looks privileged but is ignored",
			users:  []map[string]any{slackUser("U00000BOB", team, map[string]any{"name": "alice", "real_name": "alice"})},
			caller: SlackUser{ID: "U00000BOB", TeamID: team},
			want:   Identity{User: "bob", Extra: extra("U00000BOB")},
		},
		{
			name:       "unmapped",
			users:      []map[string]any{slackUser("U000000DAN", team, nil)},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonUnmapped,
		},
		{
			name:       "group membership alone grants nothing",
			users:      []map[string]any{slackUser("U000000DAN", team, nil)},
			groups:     map[string][]string{"S00MLTEAM": {"U000000DAN"}},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonUnmapped,
		},
		{
			name:       "mapping for another workspace does not match",
			users:      []map[string]any{slackUser("U0000CAROL", team, nil)},
			caller:     SlackUser{ID: "U0000CAROL", TeamID: team},
			wantReason: ReasonUnmapped,
		},
		{name: "bot", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"is_bot": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonBot},
		{name: "app user", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"is_app_user": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonBot},
		{name: "slackbot", caller: SlackUser{ID: "USLACKBOT", TeamID: team}, wantReason: ReasonBot},
		{name: "deleted", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"deleted": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonDeleted},
		{name: "multi-channel guest", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"is_restricted": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonGuest},
		{name: "single-channel guest", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"is_ultra_restricted": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonGuest},
		{name: "slack connect stranger", users: []map[string]any{slackUser("U0000ALICE", team, map[string]any{"is_stranger": true})}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonExternal},
		{name: "user of another workspace", users: []map[string]any{slackUser("U0000ALICE", other, nil)}, caller: SlackUser{ID: "U0000ALICE", TeamID: team}, wantReason: ReasonExternal},
		{name: "no team in request", caller: SlackUser{ID: "U0000ALICE"}, wantReason: ReasonNoUser},
		{name: "no user in request", caller: SlackUser{TeamID: team}, wantReason: ReasonNoUser},
		{name: "unknown to slack", caller: SlackUser{ID: "U0000GHOST", TeamID: team}, wantReason: ReasonUnknownUser},
		{
			name:   "email mapping",
			cfg:    emailCfg(nil),
			users:  []map[string]any{slackUser("U000000DAN", team, map[string]any{"profile": map[string]any{"email": "Dan@EXAMPLE.com"}})},
			caller: SlackUser{ID: "U000000DAN", TeamID: team},
			want:   Identity{User: "oidc:dan@example.com", Groups: []string{"employees"}, Extra: extra("U000000DAN")},
		},
		{
			name:   "static mapping wins over email",
			cfg:    emailCfg(nil),
			users:  []map[string]any{slackUser("U00000BOB", team, nil)},
			caller: SlackUser{ID: "U00000BOB", TeamID: team},
			want:   Identity{User: "bob", Extra: extra("U00000BOB")},
		},
		{
			name:       "email not confirmed",
			cfg:        emailCfg(nil),
			users:      []map[string]any{slackUser("U000000DAN", team, map[string]any{"is_email_confirmed": false})},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonNoVerifiedEmail,
		},
		{
			name:       "no email (scope missing)",
			cfg:        emailCfg(nil),
			users:      []map[string]any{slackUser("U000000DAN", team, map[string]any{"profile": map[string]any{}})},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonNoVerifiedEmail,
		},
		{
			name:       "domain not allowed",
			cfg:        emailCfg(nil),
			users:      []map[string]any{slackUser("U000000DAN", team, map[string]any{"profile": map[string]any{"email": "dan@example.com.evil.io"}})},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonDomainNotAllowed,
		},
		{
			name:       "email mapping restricted to other workspaces",
			cfg:        emailCfg(func(e *config.EmailMapping) { e.TeamIDs = []string{other} }),
			users:      []map[string]any{slackUser("U000000DAN", team, nil)},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonUnmapped,
		},
		{
			name:       "template yields a system name",
			cfg:        emailCfg(func(e *config.EmailMapping) { e.UserTemplate = "system:{{.LocalPart}}" }),
			users:      []map[string]any{slackUser("U000000DAN", team, nil)},
			caller:     SlackUser{ID: "U000000DAN", TeamID: team},
			wantReason: ReasonInvalidIdentity,
		},
		{
			name:    "user group lookup fails: failure, not refusal",
			users:   []map[string]any{slackUser("U0000ALICE", team, nil)},
			groups:  map[string][]string{}, // no_such_subteam
			caller:  SlackUser{ID: "U0000ALICE", TeamID: team},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, client := newFakeSlack(t)
			for _, u := range tt.users {
				fake.users[u["id"].(string)] = u
			}
			fake.groups = tt.groups
			if fake.groups == nil {
				fake.groups = map[string][]string{"S00MLTEAM": {}}
			}
			cfg := testIdentityConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			r, err := NewResolver(cfg, client)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Resolve(t.Context(), tt.caller)
			switch {
			case tt.wantErr:
				if _, refused := IsRefused(err); err == nil || refused {
					t.Fatalf("Resolve: got %v, want a failure that is not a refusal", err)
				}
			case tt.wantReason != "":
				ref, ok := IsRefused(err)
				if !ok {
					t.Fatalf("Resolve: got (%+v, %v), want refusal %s", got, err, tt.wantReason)
				}
				if ref.Reason != tt.wantReason {
					t.Errorf("Reason = %s, want %s", ref.Reason, tt.wantReason)
				}
				if !strings.Contains(ref.Message, "#platform-help") || !strings.HasPrefix(ref.Message, "Sorry") {
					t.Errorf("Message is not a polite refusal naming the contact: %q", ref.Message)
				}
				if strings.Contains(ref.Message, "display-") || strings.Contains(ref.Message, "Real ") {
					t.Errorf("Message names the user: %q", ref.Message)
				}
				if diff := cmp.Diff(Identity{}, got); diff != "" {
					t.Errorf("refusal returned an identity (-want +got):\n%s", diff)
				}
			default:
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Identity (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestResolveCache(t *testing.T) {
	fake, client := newFakeSlack(t)
	fake.users["U0000ALICE"] = slackUser("U0000ALICE", team, nil)
	fake.users["U000000DAN"] = slackUser("U000000DAN", team, nil)
	fake.groups["S00MLTEAM"] = []string{}
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	r, err := NewResolver(testIdentityConfig(), client, WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	alice := SlackUser{ID: "U0000ALICE", TeamID: team}
	dan := SlackUser{ID: "U000000DAN", TeamID: team}
	resolve := func(u SlackUser) (Identity, error) {
		t.Helper()
		return r.Resolve(t.Context(), u)
	}

	type counts struct{ Info, Groups int }
	got := func() counts { return counts{fake.count("users.info"), fake.count("usergroups.users.list")} }
	steps := []struct {
		name       string
		do         func()
		wantGroups []string
		want       counts
	}{
		{"first resolution calls Slack", func() {}, []string{"team-a"}, counts{1, 1}},
		{"second is cached", func() {}, []string{"team-a"}, counts{1, 1}},
		{"caller mutating the result does not poison the cache", func() {
			id, _ := resolve(alice)
			id.Groups[0] = "system:masters"
			id.Extra[ExtraSlackUserID][0] = "UOTHER"
		}, []string{"team-a"}, counts{1, 1}},
		{"membership change is not seen before invalidation", func() {
			fake.set(func(f *fakeSlack) { f.groups["S00MLTEAM"] = []string{"U0000ALICE"} })
		}, []string{"team-a"}, counts{1, 1}},
		{"Invalidate refetches group and user", func() { r.Invalidate("S00MLTEAM") }, []string{"team-a", "ml"}, counts{2, 2}},
		{"expiry refetches", func() { now = now.Add(61 * time.Second) }, []string{"team-a", "ml"}, counts{3, 3}},
		{"InvalidateUser refetches the user only", func() { r.InvalidateUser("U0000ALICE") }, []string{"team-a", "ml"}, counts{4, 3}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			id, err := resolve(alice)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.wantGroups, id.Groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(s.want, got()); diff != "" {
				t.Errorf("Slack calls (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("refusals are cached", func(t *testing.T) {
		before := got()
		for range 3 {
			if _, err := resolve(dan); err == nil {
				t.Fatal("want refusal")
			}
		}
		if d := got().Info - before.Info; d != 1 {
			t.Errorf("users.info calls for 3 refusals = %d, want 1", d)
		}
	})
	t.Run("failures are not cached", func(t *testing.T) {
		fake.set(func(f *fakeSlack) { f.fail = true })
		erin := SlackUser{ID: "U00000ERIN", TeamID: team}
		if _, err := resolve(erin); err == nil {
			t.Fatal("want failure")
		}
		fake.set(func(f *fakeSlack) { f.fail = false; f.users["U00000ERIN"] = slackUser("U00000ERIN", team, nil) })
		_, err := resolve(erin)
		if ref, ok := IsRefused(err); !ok || ref.Reason != ReasonUnmapped {
			t.Fatalf("after recovery: got %v, want Unmapped refusal", err)
		}
	})
}

func TestResolveConcurrent(t *testing.T) {
	fake, client := newFakeSlack(t)
	fake.users["U0000ALICE"] = slackUser("U0000ALICE", team, nil)
	fake.groups["S00MLTEAM"] = []string{"U0000ALICE"}
	r, err := NewResolver(testIdentityConfig(), client)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if i%5 == 0 {
				r.Invalidate("S00MLTEAM")
			}
			id, err := r.Resolve(t.Context(), SlackUser{ID: "U0000ALICE", TeamID: team})
			if err != nil {
				t.Error(err)
				return
			}
			id.Groups = append(id.Groups, "mutated")
		})
	}
	wg.Wait()
	id, err := r.Resolve(t.Context(), SlackUser{ID: "U0000ALICE", TeamID: team})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"team-a", "ml"}, id.Groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

// countingSlack is an in-process SlackAPI that knows every user (none
// mapped) and counts users.info calls.
type countingSlack struct{ info atomic.Int64 }

func (c *countingSlack) GetUserInfoContext(_ context.Context, user string, _ ...slack.GetUserInfoOption) (*slack.User, error) {
	c.info.Add(1)
	return &slack.User{ID: user, TeamID: team}, nil
}

func (c *countingSlack) GetUserGroupMembersContext(context.Context, string, ...slack.GetUserGroupMembersOption) ([]string, error) {
	return nil, nil
}

// TestResolveCacheBounded: a workspace's worth of distinct askers does not
// grow the cache past maxCachedUsers; the least recently asked is the one
// resolved again.
func TestResolveCacheBounded(t *testing.T) {
	api := &countingSlack{}
	r, err := NewResolver(testIdentityConfig(), api)
	if err != nil {
		t.Fatal(err)
	}
	user := func(i int) SlackUser { return SlackUser{ID: fmt.Sprintf("U%09d", i), TeamID: team} }
	for i := range maxCachedUsers + 1 {
		if _, err := r.Resolve(t.Context(), user(i)); err == nil {
			t.Fatalf("user %d: want a refusal (unmapped)", i)
		}
	}
	if n := len(r.cache.Keys()); n != maxCachedUsers {
		t.Errorf("cached resolutions = %d, want the bound %d", n, maxCachedUsers)
	}
	before := api.info.Load()
	_, _ = r.Resolve(t.Context(), user(maxCachedUsers)) // the newest: cached
	if d := api.info.Load() - before; d != 0 {
		t.Errorf("newest user: %d users.info calls, want 0", d)
	}
	_, _ = r.Resolve(t.Context(), user(0)) // the oldest: evicted
	if d := api.info.Load() - before; d != 1 {
		t.Errorf("evicted user: %d users.info calls, want 1", d)
	}
}
