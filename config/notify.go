package config

import "time"

// Notify configures "Tell me when it starts": a user subscribes to a job
// (a button on a pending answer, or /kueue notify JOB) and gets a direct
// message when its Workload is admitted, when its Pods run, and when it
// is evicted or preempted, fails or finishes. The subscriptions are kept
// in ConfigMaps of the bot's namespace (which needs POD_NAMESPACE), the
// replica that leads watches them, and every read is made as the
// subscriber, who needs list and watch on Workloads and Pods in the
// job's namespace (the kueuebot-reader ClusterRole grants them; without
// watch on Pods, "Running" comes from a 30 s poll).
type Notify struct {
	// Enabled turns notifications on; off by default. The bot's Role then
	// also gets get and update on the subscription ConfigMaps
	// (kueuebot-notify-0 to kueuebot-notify-7) and create on ConfigMaps.
	Enabled bool `mapstructure:"enabled"`
	// MaxPerUser is how many subscriptions one Slack user may hold at
	// once (1 to 50); one more is refused with the list of the user's.
	MaxPerUser int `mapstructure:"maxPerUser"`
	// ExpireAfter is how long a subscription lasts (1m to 30 days): after
	// it, the user is told it ended, whatever the job does.
	ExpireAfter time.Duration `mapstructure:"expireAfter"`
}

// Notification defaults and bounds.
const (
	DefaultNotifyMaxPerUser  = 10
	DefaultNotifyExpireAfter = 7 * 24 * time.Hour
	// MaxNotifyPerUser bounds maxPerUser: the subscriptions of one user
	// live in one ConfigMap shard with thousands of others'.
	MaxNotifyPerUser = 50
	// MaxNotifyExpireAfter bounds expireAfter.
	MaxNotifyExpireAfter = 30 * 24 * time.Hour
)

func (c *Config) validateNotify(errs *errList) {
	n := c.Notify
	if n.MaxPerUser < 1 || n.MaxPerUser > MaxNotifyPerUser {
		errs.addf("notify.maxPerUser", "%d is out of range: between 1 and %d", n.MaxPerUser, MaxNotifyPerUser)
	}
	if n.ExpireAfter < time.Minute || n.ExpireAfter > MaxNotifyExpireAfter {
		errs.addf("notify.expireAfter", "%s is out of range: between 1m and %s (30 days)", n.ExpireAfter, MaxNotifyExpireAfter)
	}
}
