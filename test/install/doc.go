// Package install tests what deploy/ ships: the Helm chart
// (deploy/helm/kueuebot) rendered with Helm's Go library, the kustomize base
// (deploy/manifests) rendered with kustomize's Go API, their equality with
// what the rbac package renders for the same config, and, on the sandbox's
// real API server (KUEUEBOT_SANDBOX), that every object is valid and that
// the bot's rights are exactly what it needs.
package install
