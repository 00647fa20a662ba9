//go:build e2e

/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package schema_test

// versionSamples holds one object body per Kubefleet kind (everything but apiVersion, kind and
// metadata), written in every version the kind serves. Each sets the fields Kubefleet's older
// versions lack (v1beta1Only), so that reading and updating them through those versions proves
// nothing is pruned. A status, where given, goes through the status subresource.
//
// The samples of kinds whose CRDs are not installed yet are skipped; a Kubefleet CRD without a
// sample fails the test.
var versionSamples = map[string]string{
	"ClusterResourcePlacement": `
spec:
  resourceSelectors:
  - {group: "", version: v1, kind: Namespace, name: versions}
  policy:
    placementType: PickN
    numberOfClusters: 2
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxUnavailable: 1}
    deleteStrategy: {propagationPolicy: Abandon}
    reportBackStrategy: {type: Mirror, destination: OriginalResource}
  revisionHistoryLimit: 5
status:
  observedResourceIndex: "3"
  conditions:
  - {type: ClusterResourcePlacementScheduled, status: "True", reason: Scheduled, message: picked, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
`,
	"ResourcePlacement": `
spec:
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, name: web}
  policy: {placementType: PickFixed, clusterNames: [member1, member2]}
  strategy:
    type: External
    deleteStrategy: {propagationPolicy: Delete}
    reportBackStrategy: {type: Disabled}
`,
	"ClusterResourceBinding": `
spec:
  state: Bound
  resourceSnapshotName: crp-3-snapshot
  schedulingPolicySnapshotName: crp-1
  targetCluster: member1
  clusterDecision: {clusterName: member1, selected: true, reason: picked}
  applyStrategy: {type: ServerSideApply, serverSideApplyConfig: {force: true}}
`,
	"ResourceBinding": `
spec:
  state: Scheduled
  targetCluster: member2
  clusterDecision: {clusterName: member2, selected: true}
`,
	"ClusterResourceSnapshot": `
spec:
  selectedResources:
  - {apiVersion: v1, kind: Namespace, metadata: {name: versions}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: versions}, data: {key: value}}
`,
	"ResourceSnapshot": `
spec:
  selectedResources:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: versions}, data: {key: value}}
`,
	"ClusterSchedulingPolicySnapshot": `
spec:
  policyHash: YWJj
  policy: {placementType: PickN, numberOfClusters: 1}
`,
	"SchedulingPolicySnapshot": `
spec:
  policyHash: ZGVm
  policy: {placementType: PickAll}
`,
	"ClusterStagedUpdateStrategy": `
spec:
  stages:
  - name: canary
    labelSelector: {matchLabels: {environment: canary}}
    sortingLabelKey: order
    maxConcurrency: 50%
    beforeStageTasks: [{type: Approval}]
    afterStageTasks: [{type: TimedWait, waitTime: 1m}]
  - name: prod
    labelSelector: {}
    maxConcurrency: 2
`,
	"StagedUpdateStrategy": `
spec:
  stages:
  - name: all
    labelSelector: {}
    maxConcurrency: 1
    beforeStageTasks: [{type: Approval}]
`,
	"ClusterStagedUpdateRun": `
spec:
  placementName: crp
  resourceSnapshotIndex: "2"
  stagedRolloutStrategyName: strategy
  state: Run
`,
	"StagedUpdateRun": `
spec:
  placementName: rp
  stagedRolloutStrategyName: strategy
  state: Run
`,
	"ClusterApprovalRequest": `
spec: {parentStageRollout: run, targetStage: canary}
status:
  conditions:
  - {type: Approved, status: "True", reason: Approved, message: ok, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
`,
	"ApprovalRequest": `
spec: {parentStageRollout: run, targetStage: all}
`,
	"MemberCluster": `
spec:
  identity: {kind: User, name: admin, apiGroup: rbac.authorization.k8s.io}
  heartbeatPeriodSeconds: 30
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
  deleteOptions: {validationMode: Skip}
`,
	// Kinds Kubefleet has and this checkout may not, written as Kubefleet's docs write them.
	"ClusterResourceOverride": `
spec:
  placement: {name: crp}
  clusterResourceSelectors:
  - {group: rbac.authorization.k8s.io, version: v1, kind: ClusterRole, name: reader}
  policy:
    overrideRules:
    - clusterSelector:
        clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]
      jsonPatchOverrides: [{op: remove, path: /rules/0/verbs/2}]
`,
	"ResourceOverride": `
spec:
  placement: {name: rp}
  resourceSelectors:
  - {group: apps, version: v1, kind: Deployment, name: web}
  policy:
    overrideRules:
    - clusterSelector:
        clusterSelectorTerms: [{labelSelector: {matchLabels: {env: prod}}}]
      jsonPatchOverrides: [{op: replace, path: /spec/replicas, value: 3}]
`,
	"ClusterResourceOverrideSnapshot": `
spec:
  overrideHash: YWJj
  overrideSpec:
    placement: {name: crp}
    clusterResourceSelectors:
    - {group: rbac.authorization.k8s.io, version: v1, kind: ClusterRole, name: reader}
    policy:
      overrideRules:
      - overrideType: Delete
`,
	"ResourceOverrideSnapshot": `
spec:
  overrideHash: ZGVm
  overrideSpec:
    placement: {name: rp}
    resourceSelectors:
    - {group: apps, version: v1, kind: Deployment, name: web}
    policy:
      overrideRules:
      - jsonPatchOverrides: [{op: add, path: /metadata/labels/region, value: "${MEMBER-CLUSTER-LABEL-KEY-region}"}]
`,
	"ClusterResourcePlacementEviction": `
spec: {placementName: crp, clusterName: member1}
`,
	"ClusterResourcePlacementDisruptionBudget": `
spec: {minAvailable: 2}
`,
	"ClusterResourcePlacementStatus": `
lastUpdatedTime: "2026-01-01T00:00:00Z"
sourceStatus:
  observedResourceIndex: "1"
  conditions:
  - {type: ClusterResourcePlacementScheduled, status: "True", reason: Scheduled, message: picked, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
`,
	"ClusterResourceEnvelope": `
data:
  webhook.yaml: {apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: guard}}
`,
	"ResourceEnvelope": `
data:
  quota.yaml: {apiVersion: v1, kind: ResourceQuota, metadata: {name: quota, namespace: versions}, spec: {hard: {pods: "10"}}}
`,
}

// v1beta1Only names, per kind, fields of its sample that Kubefleet's older versions do not have
// (from kubefleet-dev/kubefleet's CRDs): the ones None conversion would lose if those versions
// served their own, smaller schemas.
var v1beta1Only = map[string][]string{
	"ClusterResourcePlacement":    {"spec.strategy.deleteStrategy", "spec.strategy.reportBackStrategy"},
	"ResourcePlacement":           {"spec.strategy.deleteStrategy", "spec.strategy.reportBackStrategy"},
	"ClusterStagedUpdateStrategy": {"spec.stages[0].maxConcurrency", "spec.stages[0].beforeStageTasks"},
	"ClusterStagedUpdateRun":      {"spec.state"},
	"MemberCluster":               {"spec.deleteOptions"},
}
