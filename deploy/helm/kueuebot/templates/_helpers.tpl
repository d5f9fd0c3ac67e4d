{{/* The chart's name. */}}
{{- define "kueuebot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The release's full name: the release name when it contains the chart's name
(helm install kueuebot ... gives the names rbac and deploy/manifests use).
*/}}
{{- define "kueuebot.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "kueuebot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kueuebot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kueuebot.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kueuebot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "kueuebot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "kueuebot.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "kueuebot.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The Slack mode, as the bot defaults it. */}}
{{- define "kueuebot.mode" -}}
{{- dig "slack" "mode" "socket" .Values.config -}}
{{- end -}}

{{/* The port of a "host:port" or ":port" listen address. */}}
{{- define "kueuebot.port" -}}
{{- $port := regexReplaceAll "^.*:" . "" -}}
{{- if not (regexMatch "^[0-9]+$" $port) -}}
{{- fail (printf "listen address %q has no numeric port (want e.g. \":9090\")" .) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{- define "kueuebot.opsPort" -}}
{{- include "kueuebot.port" (dig "ops" "listenAddr" ":9090" .Values.config) -}}
{{- end -}}

{{- define "kueuebot.slackPort" -}}
{{- include "kueuebot.port" (dig "slack" "listenAddr" ":3000" .Values.config) -}}
{{- end -}}

{{/* Digests configured: the bot elects a leader and keeps digest state. */}}
{{- define "kueuebot.digests" -}}
{{- if (dig "digests" list .Values.config) -}}true{{- end -}}
{{- end -}}

{{/*
"true" when the config enables notifications (notify.enabled): the bot's
Role then gets the subscription ConfigMaps (rbac.NeedsNotifyState).
*/}}
{{- define "kueuebot.notify" -}}
{{- if (dig "notify" "enabled" false .Values.config) -}}true{{- end -}}
{{- end -}}

{{/*
The impersonation rules of the bot's ClusterRole, computed from config
exactly as rbac.BotClusterRole computes them (a test in test/install proves
it): users, groups and Slack user IDs the config maps, by resourceNames,
sorted and de-duplicated, never a "system:" name; users and the Slack-ID
extra unnarrowed when identity.email is enabled (names come from Slack at
run time); a rule whose list would be empty is left out (empty means all).
*/}}
{{- define "kueuebot.impersonationRules" -}}
{{- $id := dig "identity" dict .Values.config -}}
{{- $clusters := dig "clusters" list .Values.config -}}
{{- $digests := dig "digests" list .Values.config -}}
{{- with .Values.remoteCluster -}}
{{- /* rbac.ClusterObjects: the remote cluster's own identity mapping (or the top-level one), and only the digests that name it. */ -}}
{{- $remote := include "kueuebot.remoteCluster" $ | fromJson -}}
{{- if $remote.identity -}}
{{- $id = $remote.identity -}}
{{- end -}}
{{- $mine := list -}}
{{- range $digests -}}
{{- if eq (.cluster | default "") $remote.name -}}
{{- $mine = append $mine (omit . "cluster") -}}
{{- end -}}
{{- end -}}
{{- $digests = $mine -}}
{{- $clusters = list -}}
{{- end -}}
{{- $users := list -}}
{{- $groups := list -}}
{{- $slackIDs := list -}}
{{- range (dig "users" list $id) -}}
{{- $users = append $users (.user | default "") -}}
{{- $groups = concat $groups (.groups | default list) -}}
{{- $slackIDs = append $slackIDs (.slackUserID | default "") -}}
{{- end -}}
{{- $groups = concat $groups (dig "email" "groups" list $id) -}}
{{- range (dig "userGroups" list $id) -}}
{{- $groups = concat $groups (.groups | default list) -}}
{{- end -}}
{{- range $d := $digests -}}
{{- /* rbac.DigestReadsHere: no cluster, or the inCluster one; a digest of a remote cluster is read there. */ -}}
{{- $here := not $d.cluster -}}
{{- range $clusters -}}
{{- if and (eq (.name | default "") ($d.cluster | default "")) .inCluster -}}
{{- $here = true -}}
{{- end -}}
{{- end -}}
{{- if $here -}}
{{- $users = append $users ($d.user | default "") -}}
{{- $groups = concat $groups ($d.groups | default list) -}}
{{- end -}}
{{- end -}}
{{- $wide := dig "email" "enabled" false $id -}}
{{- $users = include "kueuebot.names" $users | fromJsonArray -}}
{{- $groups = include "kueuebot.names" $groups | fromJsonArray -}}
{{- $slackIDs = include "kueuebot.names" $slackIDs | fromJsonArray -}}
{{- if $wide }}
- apiGroups: [""]
  resources: [users]
  verbs: [impersonate]
{{- else if $users }}
- apiGroups: [""]
  resources: [users]
  verbs: [impersonate]
  resourceNames: {{ toJson $users }}
{{- end }}
{{- if $groups }}
- apiGroups: [""]
  resources: [groups]
  verbs: [impersonate]
  resourceNames: {{ toJson $groups }}
{{- end }}
{{- if $wide }}
- apiGroups: [authentication.k8s.io]
  resources: [userextras/kueuebot.io/slack-user-id]
  verbs: [impersonate]
{{- else if $slackIDs }}
- apiGroups: [authentication.k8s.io]
  resources: [userextras/kueuebot.io/slack-user-id]
  verbs: [impersonate]
  resourceNames: {{ toJson $slackIDs }}
{{- end }}
{{- end -}}

{{/* A sorted set of names as a JSON array, without "" and "system:" names. */}}
{{- define "kueuebot.names" -}}
{{- $out := list -}}
{{- range . -}}
{{- if and . (not (hasPrefix "system:" .)) -}}
{{- $out = append $out . -}}
{{- end -}}
{{- end -}}
{{- $out | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/* Whole seconds of a duration written as 90s, 2m or 1m30s. */}}
{{- define "kueuebot.seconds" -}}
{{- if not (regexMatch "^([0-9]+m)?([0-9]+s)?$" .) -}}
{{- fail (printf "config.ops.shutdownGrace %q: in the chart, write it in whole minutes and seconds, e.g. 25s or 1m30s" .) -}}
{{- end -}}
{{- $m := regexReplaceAll "^(?:([0-9]+)m)?(?:([0-9]+)s)?$" . "${1}" | default "0" | atoi -}}
{{- $s := regexReplaceAll "^(?:([0-9]+)m)?(?:([0-9]+)s)?$" . "${2}" | default "0" | atoi -}}
{{- add (mul $m 60) $s -}}
{{- end -}}

{{/*
remoteCluster: the config.clusters[] entry the chart installs the bot's
identity for (as JSON), failing on a name config.clusters lacks or on the
inCluster one (that is the bot's own cluster: install without remoteCluster).
*/}}
{{- define "kueuebot.remoteCluster" -}}
{{- $name := .Values.remoteCluster -}}
{{- $found := dict -}}
{{- range (dig "clusters" list .Values.config) -}}
{{- if eq (.name | default "") $name -}}
{{- $found = . -}}
{{- end -}}
{{- end -}}
{{- if not $found -}}
{{- fail (printf "remoteCluster %q: config.clusters has no cluster of that name (give the bot's whole config, as in its own release)" $name) -}}
{{- end -}}
{{- if $found.inCluster -}}
{{- fail (printf "remoteCluster %q is the bot's own cluster (inCluster): install the bot there without remoteCluster" $name) -}}
{{- end -}}
{{- $found | toJson -}}
{{- end -}}
