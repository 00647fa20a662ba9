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
	"fmt"
)

// CheckObjects evaluates every object with ev, in order, and stops at the first that is not
// healthy (an *UnhealthyError) or that the check fails on (its error, wrapped with the object's
// identity). It returns nil when all are healthy.
//
// It does not judge an empty list: upstream fails a check that matched no object, except in
// pre- and post-delete checks, and only the caller knows which kind of check it runs.
func CheckObjects(ctx context.Context, ev Evaluator, objs []map[string]any) error {
	for _, obj := range objs {
		res, err := ev.Evaluate(ctx, obj)
		if err != nil {
			return fmt.Errorf("%s: %w", ObjectName(obj), err)
		}
		if !res.Healthy {
			return &UnhealthyError{Object: ObjectName(obj), Message: res.Message}
		}
	}
	return nil
}

// ObjectName names an unstructured object in messages: "Kind namespace/name", or "Kind name"
// for a cluster-scoped one.
func ObjectName(obj map[string]any) string {
	kind, _ := obj["kind"].(string)
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	if ns != "" {
		name = ns + "/" + name
	}
	if kind == "" {
		return name
	}
	return kind + " " + name
}
