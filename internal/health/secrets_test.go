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
	"errors"
	"strings"
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func secret(ns, name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"namespace": ns, "name": name, "annotations": map[string]any{
			lastApplied: `{"apiVersion":"v1","kind":"Secret","stringData":{"token":"hunter2"}}`}},
		"data":       map[string]any{"password": "aHVudGVyMg=="},
		"stringData": map[string]any{"token": "hunter2"}}
}

// mayRead allows the Secrets it lists, and fails for "broken".
func mayRead(allowed ...string) SecretAccess {
	return func(_ context.Context, ns, name string) (bool, error) {
		if name == "broken" {
			return true, errors.New("the review could not be made")
		}
		for _, a := range allowed {
			if a == ns+"/"+name {
				return true, nil
			}
		}
		return false, nil
	}
}

// TestSecretsRedacted: a Secret the profile's owner may not read reaches a check with its
// keys and without its values, whether the check selected it or read it with getResource,
// and whatever the check does its message cannot carry them.
func TestSecretsRedacted(t *testing.T) {
	db := secret("apps", "db")
	getter := (&fakeGetter{objects: map[string]map[string]any{
		"v1/Secret/apps/db":      db,
		"v1/Secret/apps/mine":    secret("apps", "mine"),
		"v1/Secret/apps/broken":  secret("apps", "broken"),
		"v1/ConfigMap/apps/conf": {"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "hunter2"}},
	}}).get
	leak := func(kind, name string) string {
		return returning(`{healthy = false, message = tostring(getResource("v1", "` + kind + `", "apps", "` + name + `").data["` +
			map[string]string{"Secret": "password", "ConfigMap": "k"}[kind] + `"])}`)
	}
	selected := returning(`{healthy = false, message = obj.data.password .. " " .. obj.stringData.token}`)
	for _, tc := range []struct {
		name    string
		check   *libv1beta1.ValidateHealth
		obj     map[string]any
		secrets SecretAccess
		message string
	}{
		{"getResource, tenant may not read", luaCheck(leak("Secret", "db")), nil, mayRead(), Redacted},
		{"getResource, tenant may read", luaCheck(leak("Secret", "mine")), nil, mayRead("apps/mine"), "aHVudGVyMg=="},
		{"getResource, review failed", luaCheck(leak("Secret", "broken")), nil, mayRead("apps/broken"), Redacted},
		{"getResource, admin", luaCheck(leak("Secret", "db")), nil, nil, "aHVudGVyMg=="},
		{"getResource, not a Secret", luaCheck(leak("ConfigMap", "conf")), nil, mayRead(), "hunter2"},
		{"selected Secret", &libv1beta1.ValidateHealth{Name: "s", Version: "v1", Kind: "Secret", Script: selected},
			secret("apps", "db"), mayRead(), Redacted + " " + Redacted},
		{"selected Secret, admin", &libv1beta1.ValidateHealth{Name: "s", Version: "v1", Kind: "Secret", Script: selected},
			secret("apps", "db"), nil, "aHVudGVyMg== hunter2"},
		{"selected Secret, the last-applied annotation", &libv1beta1.ValidateHealth{Name: "s", Version: "v1", Kind: "Secret",
			Script: returning(`{healthy = false, message = obj.metadata.annotations["` + lastApplied + `"]}`)},
			secret("apps", "db"), mayRead(), Redacted},
		{"getResource, the last-applied annotation", luaCheck(returning(`{healthy = false, message = getResource("v1", "Secret", "apps", "db").metadata.annotations["` +
			lastApplied + `"]}`)), nil, mayRead(), Redacted},
		{"CEL sees the redacted value", &libv1beta1.ValidateHealth{Name: "c", Version: "v1", Kind: "Secret",
			EvaluateCEL: []libv1beta1.CELRule{{Name: "known", Rule: `self.data.password == "aHVudGVyMg=="`}}}, secret("apps", "db"), mayRead(), "known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Compile(tc.check, Options{Getter: getter, Secrets: tc.secrets})
			if err != nil {
				t.Fatal(err)
			}
			obj := tc.obj
			if obj == nil {
				obj = map[string]any{"kind": "Deployment"}
			}
			res, err := ev.Evaluate(context.Background(), obj)
			if err != nil {
				t.Fatal(err)
			}
			if res.Healthy || !strings.Contains(res.Message, tc.message) {
				t.Fatalf("got %+v, want unhealthy with %q", res, tc.message)
			}
			if tc.secrets != nil && tc.message == Redacted && strings.Contains(res.Message, "hunter2") {
				t.Fatalf("message %q carries the Secret's value", res.Message)
			}
		})
	}
	if s := db; s["data"].(map[string]any)["password"] != "aHVudGVyMg==" ||
		!strings.Contains(s["metadata"].(map[string]any)["annotations"].(map[string]any)[lastApplied].(string), "hunter2") {
		t.Fatal("redaction changed the caller's object")
	}
}
