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

package health

import (
	"context"
	"maps"
	"sync"
)

// SecretAccess says whether the owner of the profile a check belongs to may read the Secret
// namespace/name on the cluster the check runs against. An error counts as no.
type SecretAccess func(ctx context.Context, namespace, name string) (bool, error)

// Redacted stands for every value of a Secret a check may not read: its keys stay, so that a
// check can still ask whether a key is there.
const Redacted = "(redacted)"

// secretGuard redacts the Secrets a check sees, whether selected by the check or read with
// getResource, unless may allows them. A nil guard (or nil may) redacts nothing: the
// profile is a platform admin's, who may read what the controller reads.
type secretGuard struct {
	may  SecretAccess
	mu   sync.Mutex
	seen map[string]bool // answers of may, for the life of the compiled check
}

func newSecretGuard(may SecretAccess) *secretGuard {
	if may == nil {
		return nil
	}
	return &secretGuard{may: may, seen: map[string]bool{}}
}

// redact returns obj, or a copy with its data and stringData values (and the last-applied
// annotation, which repeats them) replaced when obj is a Secret the owner may not read. obj
// itself is never changed.
func (g *secretGuard) redact(ctx context.Context, obj map[string]any) map[string]any {
	if g == nil || obj == nil || obj["kind"] != "Secret" || obj["apiVersion"] != "v1" {
		return obj
	}
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if g.allowed(ctx, ns, name) {
		return obj
	}
	out := maps.Clone(obj)
	for _, field := range []string{"data", "stringData"} {
		values, ok := obj[field].(map[string]any)
		if !ok {
			continue
		}
		hidden := make(map[string]any, len(values))
		for k := range values {
			hidden[k] = Redacted
		}
		out[field] = hidden
	}
	// kubectl apply keeps the whole Secret, values included, in an annotation.
	if annotations, ok := meta["annotations"].(map[string]any); ok {
		if _, ok := annotations[lastApplied]; ok {
			m, a := maps.Clone(meta), maps.Clone(annotations)
			a[lastApplied] = Redacted
			m["annotations"] = a
			out["metadata"] = m
		}
	}
	return out
}

// lastApplied is the annotation where kubectl apply keeps the object it applied.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

func (g *secretGuard) allowed(ctx context.Context, ns, name string) bool {
	key := ns + "/" + name
	g.mu.Lock()
	ok, known := g.seen[key]
	g.mu.Unlock()
	if known {
		return ok
	}
	ok, err := g.may(ctx, ns, name)
	ok = ok && err == nil
	g.mu.Lock()
	g.seen[key] = ok
	g.mu.Unlock()
	return ok
}

// getter wraps get so that the Secrets it returns are redacted.
func (g *secretGuard) getter(get ResourceGetter) ResourceGetter {
	if g == nil || get == nil {
		return get
	}
	return func(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, error) {
		obj, err := get(ctx, apiVersion, kind, namespace, name)
		if err != nil {
			return obj, err
		}
		return g.redact(ctx, obj), nil
	}
}
