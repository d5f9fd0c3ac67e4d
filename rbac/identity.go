package rbac

// SlackUser is the immutable identity of a Slack user as Slack delivers it
// with an event. Display names are never used for access decisions.
type SlackUser struct {
	// ID is the Slack user ID, e.g. "U012AB3CD".
	ID string
	// TeamID is the workspace ID, e.g. "T012AB3CD": the workspace the event
	// was delivered to (the envelope's team_id), never a value the user
	// typed. A user whose own workspace differs is refused as external.
	TeamID string
	// EnterpriseID is the Enterprise Grid org ID, empty outside Grid.
	EnterpriseID string
}

// Identity is the Kubernetes identity a Slack user reads as.
type Identity struct {
	// User is the Kubernetes user name to impersonate.
	User string
	// Groups are the Kubernetes groups to impersonate.
	Groups []string
	// Extra is impersonated user extra data; it always carries the Slack
	// user ID so the audit log ties each read to the Slack user.
	Extra map[string][]string
	// Namespaces are the configured default namespaces, in preference order.
	Namespaces []string
}
