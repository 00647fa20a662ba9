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

package operate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// SplitName splits "NAMESPACE/NAME", the way a user names a namespaced object (a cluster, a
// Secret); ok is false unless both parts are there and NAME has no "/".
func SplitName(s string) (namespace, name string, ok bool) {
	namespace, name, ok = strings.Cut(s, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", false
	}
	return namespace, name, true
}

// ClusterName splits "NAMESPACE/NAME", the way clusters are named, or says why it cannot.
func ClusterName(s string) (namespace, name string, _ error) {
	namespace, name, ok := SplitName(s)
	if !ok {
		return "", "", fmt.Errorf("cluster %q: name it NAMESPACE/NAME, as stagecoach status lists it", s)
	}
	return namespace, name, nil
}

// PauseCluster sets spec.paused of the SveltosCluster namespace/name. Paused, nothing is
// deployed to the cluster and no stage waits for it; resumed, it catches up: each stage it
// belongs to gives it the version that stage is on.
func PauseCluster(ctx context.Context, c client.Client, namespace, name string, pause bool) (string, error) {
	cl := &libv1beta1.SveltosCluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cl); err != nil {
		return "", view.NotFound(err, "SveltosCluster", namespace, name)
	}
	full := namespace + "/" + name
	if cl.Spec.Paused == pause {
		return fmt.Sprintf("SveltosCluster %s is already %s", full, map[bool]string{true: "paused", false: "running"}[pause]), nil
	}
	patch := fmt.Appendf(nil, `{"spec":{"paused":%t}}`, pause)
	if err := c.Patch(ctx, cl, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("paused SveltosCluster %s: nothing is deployed to it and no stage waits for it", full)
	next := cl.Status.NextUnpause
	if !pause {
		msg = fmt.Sprintf("resumed SveltosCluster %s: it catches up with the version of each stage it belongs to", full)
		next = cl.Status.NextPause
	}
	if cl.Spec.ActiveWindow != nil && next != nil {
		msg += fmt.Sprintf("; its activeWindow sets spec.paused again at %s", next.UTC().Format(time.RFC3339))
	}
	return msg, nil
}
