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

package clustersummary

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/restart"
)

// reloaderAnnotationPrefix starts the workload annotation in which a reloader profile records
// the content of its ConfigMaps and Secrets that the workload's pods read, as a hash. The key
// ends with a hash of the summary, so that profiles reloading the same workload keep apart.
const reloaderAnnotationPrefix = "reloader.stagecoach.dev/"

type configKey struct{ kind, namespace, name string }

// reload, for a profile with reloader, restarts the Deployments, StatefulSets and DaemonSets
// whose pods read a ConfigMap or Secret the profile deploys (volumes, envFrom, env valueFrom)
// once that object's content changed, as `kubectl rollout restart` does. Each workload records
// the content it was last restarted for, so a restart that failed is made at the next attempt,
// and a workload seen for the first time is only recorded.
// id is the feature that deployed objs: each feature keeps its own record on the workloads.
func (d *deployment) reload(ctx context.Context, id libv1beta1.FeatureID, objs []*unstructured.Unstructured) error {
	if !d.spec().Reloader {
		return nil
	}
	contents := map[configKey]string{}
	var namespaces []string
	for _, m := range objs {
		if m == nil || m.GetAPIVersion() != "v1" || (m.GetKind() != "ConfigMap" && m.GetKind() != "Secret") {
			continue
		}
		ns := m.GetNamespace()
		if ns == "" {
			ns = corev1.NamespaceDefault
		}
		data, _ := json.Marshal([]any{m.Object["data"], m.Object["binaryData"], m.Object["stringData"]})
		sum := sha256.Sum256(data)
		contents[configKey{m.GetKind(), ns, m.GetName()}] = hex.EncodeToString(sum[:])
		namespaces = append(namespaces, ns)
	}
	slices.Sort(namespaces)
	key := reloaderAnnotationPrefix + shortHash(d.owner(id))
	now := time.Now()
	var errs []error
	for _, ns := range slices.Compact(namespaces) {
		workloads, err := restart.List(ctx, d.remote.Dynamic, ns)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, w := range workloads {
			want, changed := readsContent(w, contents)
			had, seen := w.Annotations[key]
			switch {
			case want == "" || want == had:
			case !seen:
				errs = append(errs, restart.Annotate(ctx, d.remote.Dynamic, w, map[string]string{key: want}))
			default:
				if err := restart.Restart(ctx, d.remote.Dynamic, w, now, map[string]string{key: want}); err != nil {
					errs = append(errs, err)
					continue
				}
				d.r.recorder.Eventf(d.cs, nil, corev1.EventTypeNormal, "WorkloadRestarted", "Reload",
					"restarted %s on %s: the content it reads changed (%s)", w, d.remote.Ref, changed)
			}
		}
	}
	return errors.Join(errs...)
}

// readsContent hashes the contents of the deployed ConfigMaps and Secrets that w's pods read,
// and names them; "" when w reads none of them.
func readsContent(w restart.Workload, contents map[configKey]string) (hash, names string) {
	refs := restart.Reads(&w.Template)
	h := sha256.New()
	var read []string
	add := func(kind string, names []string) {
		for _, n := range names {
			if c, ok := contents[configKey{kind, w.Namespace, n}]; ok {
				h.Write([]byte(kind + "/" + n + "=" + c + "\x00"))
				read = append(read, kind+" "+w.Namespace+"/"+n)
			}
		}
	}
	add("ConfigMap", refs.ConfigMaps)
	add("Secret", refs.Secrets)
	if len(read) == 0 {
		return "", ""
	}
	return hex.EncodeToString(h.Sum(nil))[:32], strings.Join(read, ", ")
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// manifestObjects are the objects of deployed manifests, for reload.
func manifestObjects(objs []manifests.Object) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Manifest)
	}
	return out
}

// releaseObjects are the ConfigMaps and Secrets of Helm releases' manifests, for reload; a
// document that does not parse is left out (Helm applied it, so it does parse).
func releaseObjects(rels []helm.Release) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, rel := range rels {
		for _, doc := range releaseutil.SplitManifests(rel.Manifest) {
			u := &unstructured.Unstructured{}
			if yaml.Unmarshal([]byte(doc), &u.Object) != nil || u.Object == nil {
				continue
			}
			if u.GetNamespace() == "" {
				u.SetNamespace(rel.Namespace)
			}
			out = append(out, u)
		}
	}
	return out
}
