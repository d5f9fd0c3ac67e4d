package rbac

import "context"

type slackUserKey struct{}

// WithSlackUser returns ctx carrying the Slack user a question comes from,
// so that a cluster with its own identity mapping can resolve them there
// (explain.Fleet).
func WithSlackUser(ctx context.Context, u SlackUser) context.Context {
	return context.WithValue(ctx, slackUserKey{}, u)
}

// SlackUserFrom returns the Slack user WithSlackUser put in ctx.
func SlackUserFrom(ctx context.Context) (SlackUser, bool) {
	u, ok := ctx.Value(slackUserKey{}).(SlackUser)
	return u, ok && u.ID != ""
}
