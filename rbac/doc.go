// Package rbac maps a Slack user to a Kubernetes identity and builds clients
// that read as that identity through impersonation, so the cluster's own RBAC
// decides what the user may see. Deny by default: an unmapped user gets no
// identity and no client, and nothing ever falls back to the bot's identity
// for namespaced data.
package rbac
