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

package fleetsim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
)

// readyStatuses compute, per workload resource, the status its controller reports once every
// pod is up: what kstatus (Helm's wait) and Stagecoach's health checks take for ready. No pods or
// ReplicaSets are made; a DaemonSet runs on one simulated node.
var readyStatuses = map[schema.GroupResource]func(obj *unstructured.Unstructured, now string) map[string]any{
	{Group: "apps", Resource: "deployments"}:  deploymentStatus,
	{Group: "apps", Resource: "statefulsets"}: statefulSetStatus,
	{Group: "apps", Resource: "daemonsets"}:   daemonSetStatus,
	{Group: "apps", Resource: "replicasets"}:  replicaSetStatus,
	{Group: "batch", Resource: "jobs"}:        jobStatus,
	podsResource:                              podStatus,
}

// replicas is spec.replicas, which defaults to 1.
func replicas(obj *unstructured.Unstructured) int64 {
	n, found, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if !found || err != nil {
		return 1
	}
	return n
}

// templateHash names a pod template's revision, as the pod-template-hash of a ReplicaSet or
// the revision of a StatefulSet does.
func templateHash(obj *unstructured.Unstructured) string {
	template, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "template")
	data, _ := json.Marshal(template) // a stored object always encodes
	h := fnv.New32a()
	h.Write(data)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

func condition(typ, status, reason, message, now string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": now}
}

func deploymentStatus(obj *unstructured.Unstructured, now string) map[string]any {
	n := replicas(obj)
	available := condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now)
	progressing := condition("Progressing", "True", "NewReplicaSetAvailable",
		fmt.Sprintf("ReplicaSet %q has successfully progressed.", obj.GetName()+"-"+templateHash(obj)), now)
	available["lastUpdateTime"], progressing["lastUpdateTime"] = now, now
	return map[string]any{
		"observedGeneration": obj.GetGeneration(),
		"replicas":           n,
		"updatedReplicas":    n,
		"readyReplicas":      n,
		"availableReplicas":  n,
		"conditions":         []any{available, progressing},
	}
}

func statefulSetStatus(obj *unstructured.Unstructured, _ string) map[string]any {
	n := replicas(obj)
	revision := obj.GetName() + "-" + templateHash(obj)
	return map[string]any{
		"observedGeneration": obj.GetGeneration(),
		"replicas":           n,
		"readyReplicas":      n,
		"currentReplicas":    n,
		"updatedReplicas":    n,
		"availableReplicas":  n,
		"currentRevision":    revision,
		"updateRevision":     revision,
		"collisionCount":     int64(0),
	}
}

func daemonSetStatus(obj *unstructured.Unstructured, _ string) map[string]any {
	return map[string]any{
		"observedGeneration":     obj.GetGeneration(),
		"desiredNumberScheduled": int64(1),
		"currentNumberScheduled": int64(1),
		"updatedNumberScheduled": int64(1),
		"numberReady":            int64(1),
		"numberAvailable":        int64(1),
		"numberMisscheduled":     int64(0),
	}
}

func replicaSetStatus(obj *unstructured.Unstructured, _ string) map[string]any {
	n := replicas(obj)
	return map[string]any{
		"observedGeneration":   obj.GetGeneration(),
		"replicas":             n,
		"fullyLabeledReplicas": n,
		"readyReplicas":        n,
		"availableReplicas":    n,
	}
}

func jobStatus(obj *unstructured.Unstructured, now string) map[string]any {
	completions, found, err := unstructured.NestedInt64(obj.Object, "spec", "completions")
	if !found || err != nil {
		completions = 1
	}
	return map[string]any{
		"startTime":               now,
		"completionTime":          now,
		"succeeded":               completions,
		"ready":                   int64(0),
		"terminating":             int64(0),
		"uncountedTerminatedPods": map[string]any{},
		"conditions": []any{
			condition("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods", now),
			condition("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods", now),
		},
	}
}

// podStatus runs a pod that restarts always, and completes one that does not.
func podStatus(obj *unstructured.Unstructured, now string) map[string]any {
	policy, _, _ := unstructured.NestedString(obj.Object, "spec", "restartPolicy")
	completes := policy == "Never" || policy == "OnFailure"
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "containers")
	var statuses []any
	for _, c := range containers {
		spec, _ := c.(map[string]any)
		state := map[string]any{"running": map[string]any{"startedAt": now}}
		if completes {
			state = map[string]any{"terminated": map[string]any{"exitCode": int64(0), "reason": "Completed", "startedAt": now, "finishedAt": now}}
		}
		statuses = append(statuses, map[string]any{
			"name": spec["name"], "image": spec["image"], "imageID": "", "ready": !completes,
			"started": !completes, "restartCount": int64(0), "state": state,
		})
	}
	ready, phase := "True", "Running"
	readyCond := condition("Ready", ready, "", "", now)
	if completes {
		phase = "Succeeded"
		readyCond = condition("Ready", "False", "PodCompleted", "", now)
	}
	return map[string]any{
		"phase":     phase,
		"qosClass":  "BestEffort",
		"startTime": now,
		"conditions": []any{
			condition("Initialized", "True", "", "", now),
			readyCond,
			condition("PodScheduled", "True", "", "", now),
		},
		"containerStatuses": statuses,
	}
}
