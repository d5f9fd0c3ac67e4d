package transport

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack/slackevents"
)

type recordingInvalidator struct{ groups, users []string }

func (r *recordingInvalidator) Invalidate(g string)     { r.groups = append(r.groups, g) }
func (r *recordingInvalidator) InvalidateUser(u string) { r.users = append(r.users, u) }

// TestMembershipEventsInvalidate: Slack's membership and profile events
// drop cached identities, so removing someone from a user group takes
// effect before the cache TTL ends.
func TestMembershipEventsInvalidate(t *testing.T) {
	inv := &recordingInvalidator{}
	d := &Decoder{Invalidate: inv}
	events := []slackevents.EventsAPIEvent{
		{InnerEvent: slackevents.EventsAPIInnerEvent{Data: &slackevents.SubteamMembersChangedEvent{SubteamID: "S00MLTEAM", AddedUsers: []string{"U1"}, RemovedUsers: []string{"U2"}}}},
		{InnerEvent: slackevents.EventsAPIInnerEvent{Data: &slackevents.UserChangeEvent{User: slackevents.User{ID: "U3", Deleted: true}}}},
	}
	for _, ev := range events {
		if _, ok := d.EventsAPI(ev, time.Time{}); ok {
			t.Fatalf("a membership event must not become a question: %T", ev.InnerEvent.Data)
		}
	}
	if diff := cmp.Diff([]string{"S00MLTEAM"}, inv.groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"U1", "U2", "U3"}, inv.users); diff != "" {
		t.Errorf("users (-want +got):\n%s", diff)
	}
}
