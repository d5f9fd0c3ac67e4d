// Package notify is "Tell me when it starts": a Slack user subscribes to
// a job and gets a direct message when its Workload is admitted, when its
// Pods run, and when it is evicted or preempted, fails or finishes, until
// they say "stop", press Stop, or the subscription expires.
//
// Its rules: subscriptions live in the cluster (Store: a fixed set of
// ConfigMaps in the bot's namespace, written as the bot); only the leading
// replica watches them (Notifier.Lead, under bot/leader); every read of a
// job or Workload is made as the subscriber (impersonated, the identity
// resolved again from the Slack user ID before each message, so a user
// who lost access is told nothing about the job and the subscription
// ends); the watches grow with the namespaces watched, never with the
// subscriptions (one Workload watch per namespace, made as one of its
// subscribers); and a message is never posted twice nor lost across a
// crash: the transition is recorded as pending before the post, the post
// carries Slack message metadata naming it, and a replica that finds a
// pending transition looks for that metadata in the DM's history before
// posting it.
//
// The state machine (Observe, Transitions) is pure: a Workload's
// conditions and its Pods' counts in, the events a subscriber has not
// been told yet out.
package notify
