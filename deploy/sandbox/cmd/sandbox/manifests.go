package main

// auditPolicy records every request, impersonated ones included, at Metadata level
// (user, impersonatedUser, verb, objectRef, response code), skipping only RequestReceived.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// sandboxRBAC lets the bot impersonate the test users (and their implicit group); nothing else.
// Scenario manifests grant the test users what they need per namespace.
const sandboxRBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueuebot-sandbox-impersonate
  labels: {app.kubernetes.io/part-of: kueuebot-sandbox}
rules:
- apiGroups: [""]
  resources: [users]
  verbs: [impersonate]
  resourceNames: [alice, bob, carol]
- apiGroups: [""]
  resources: [groups]
  verbs: [impersonate]
  resourceNames: ["system:authenticated"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kueuebot-sandbox-impersonate
  labels: {app.kubernetes.io/part-of: kueuebot-sandbox}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kueuebot-sandbox-impersonate}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: kueuebot}
`

// nodesYAML: fake nodes (no kubelet). Pods bound to them stay Pending forever, which is fine.
const nodesYAML = `apiVersion: v1
kind: Node
metadata:
  name: sandbox-node-a
  labels: {kubernetes.io/hostname: sandbox-node-a, kubernetes.io/os: linux, kubernetes.io/arch: amd64, instance-type: on-demand, topology.kubernetes.io/zone: zone-a}
status:
  capacity: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: "sandbox fake node"}
  - {type: MemoryPressure, status: "False", reason: KubeletHasSufficientMemory, message: ok}
  - {type: DiskPressure, status: "False", reason: KubeletHasNoDiskPressure, message: ok}
  - {type: PIDPressure, status: "False", reason: KubeletHasSufficientPID, message: ok}
  addresses: [{type: InternalIP, address: 127.0.0.1}, {type: Hostname, address: sandbox-node-a}]
---
apiVersion: v1
kind: Node
metadata:
  name: sandbox-node-b
  labels: {kubernetes.io/hostname: sandbox-node-b, kubernetes.io/os: linux, kubernetes.io/arch: amd64, instance-type: on-demand, topology.kubernetes.io/zone: zone-b}
status:
  capacity: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: "sandbox fake node"}
  - {type: MemoryPressure, status: "False", reason: KubeletHasSufficientMemory, message: ok}
  - {type: DiskPressure, status: "False", reason: KubeletHasNoDiskPressure, message: ok}
  - {type: PIDPressure, status: "False", reason: KubeletHasSufficientPID, message: ok}
  addresses: [{type: InternalIP, address: 127.0.0.1}, {type: Hostname, address: sandbox-node-b}]
---
apiVersion: v1
kind: Node
metadata:
  name: sandbox-spot-a
  labels: {kubernetes.io/hostname: sandbox-spot-a, kubernetes.io/os: linux, kubernetes.io/arch: amd64, instance-type: spot, topology.kubernetes.io/zone: zone-a}
spec:
  taints:
  - {key: spot, value: "true", effect: NoSchedule}
status:
  capacity: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", ephemeral-storage: 100Gi}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: "sandbox fake node"}
  - {type: MemoryPressure, status: "False", reason: KubeletHasSufficientMemory, message: ok}
  - {type: DiskPressure, status: "False", reason: KubeletHasNoDiskPressure, message: ok}
  - {type: PIDPressure, status: "False", reason: KubeletHasSufficientPID, message: ok}
  addresses: [{type: InternalIP, address: 127.0.0.1}, {type: Hostname, address: sandbox-spot-a}]
`

// smokeYAML: the readiness check of sandbox-up.
const smokeYAML = `apiVersion: v1
kind: Namespace
metadata:
  name: sandbox-smoke
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: sandbox-smoke
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: sandbox-smoke
spec:
  namespaceSelector:
    matchLabels: {kubernetes.io/metadata.name: sandbox-smoke}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: sandbox-smoke
      resources:
      - {name: cpu, nominalQuota: "1"}
      - {name: memory, nominalQuota: 1Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: smoke
  namespace: sandbox-smoke
spec:
  clusterQueue: sandbox-smoke
---
apiVersion: batch/v1
kind: Job
metadata:
  name: smoke
  namespace: sandbox-smoke
  labels: {kueue.x-k8s.io/queue-name: smoke}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: registry.k8s.io/pause:3.10
        resources:
          requests: {cpu: 100m, memory: 64Mi}
`

// visibilityTemplate (port): how the aggregator reaches Kueue's visibility server on loopback. Endpoints
// may not point at 127.0.0.0/8, but an ExternalName Service is resolved by the apiserver to
// <externalName>:<APIService port> without Endpoints.
const visibilityTemplate = `apiVersion: v1
kind: Service
metadata:
  name: kueue-visibility-server
  namespace: kueue-system
spec:
  type: ExternalName
  externalName: 127.0.0.1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kueue-visibility-server-auth-reader
  namespace: kube-system
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: extension-apiserver-authentication-reader}
subjects:
- {kind: ServiceAccount, name: kueue-controller-manager, namespace: kueue-system}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta2.visibility.kueue.x-k8s.io
spec:
  group: visibility.kueue.x-k8s.io
  groupPriorityMinimum: 100
  insecureSkipTLSVerify: true
  service: {name: kueue-visibility-server, namespace: kueue-system, port: %[1]d}
  version: v1beta2
  versionPriority: 100
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.visibility.kueue.x-k8s.io
spec:
  group: visibility.kueue.x-k8s.io
  groupPriorityMinimum: 100
  insecureSkipTLSVerify: true
  service: {name: kueue-visibility-server, namespace: kueue-system, port: %[1]d}
  version: v1beta1
  versionPriority: 90
`
