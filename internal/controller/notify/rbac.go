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

package notify

// What the notifications controller writes on the management cluster; make generate collects
// these markers into the chart's roles. It reads rollouts and the configuration Secret with the
// rights the other controllers already have, and writes only its delivery record, a ConfigMap of
// the controller's own namespace. The block stands alone on purpose: controller-gen reads rbac
// markers only from free-standing comments.
//
// +kubebuilder:rbac:groups="",namespace=stagecoach-system,resources=configmaps,verbs=get;create;update
