// Package e2e holds the end-to-end tests that run kueuebot against the real
// kube-apiserver (with RBAC) and the real Kueue controller of the sandbox
// (make sandbox-up). They skip unless KUEUEBOT_SANDBOX names the sandbox's
// state folder (.sandbox).
package e2e
