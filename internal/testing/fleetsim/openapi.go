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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// serveOpenAPIV3 answers /openapi/v3 with a stub: per group/version, one PATCH operation per
// resource that declares the fieldValidation parameter, and no schemas. That is what kubectl's
// and Helm's validation reads to learn that the server validates fields itself; without it they
// fall back to client-side validation, which needs the full OpenAPI v2 document. The simulator
// does no schema validation beyond what decoding built-in kinds into their Go types gives.
func (c *Cluster) serveOpenAPIV3(w http.ResponseWriter, path string) {
	gvs := c.servedGroupVersions()
	if path == "" {
		paths := map[string]any{}
		for _, gv := range gvs {
			p := apiPath(gv)
			paths[p] = map[string]any{"serverRelativeURL": "/openapi/v3/" + p + "?hash=" + openAPIHash(gv)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
		return
	}
	for _, gv := range gvs {
		if "/"+apiPath(gv) == path {
			writeJSON(w, http.StatusOK, openAPIDocument(gv))
			return
		}
	}
	writeError(w, errNoResource("get", schema.GroupResource{}))
}

func apiPath(gv groupVersion) string {
	if gv.group == "" {
		return "api/" + gv.version
	}
	return "apis/" + gv.group + "/" + gv.version
}

// openAPIHash changes when the resources of gv change, so that clients caching by hash refetch.
func openAPIHash(gv groupVersion) string {
	names := make([]string, 0, len(gv.types))
	for _, t := range gv.types {
		names = append(names, t.resource+":"+t.kind)
	}
	data, _ := json.Marshal(names) // strings always encode
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

func openAPIDocument(gv groupVersion) map[string]any {
	paths := map[string]any{}
	for _, t := range gv.types {
		p := "/" + apiPath(gv) + "/"
		if t.namespaced {
			p += "namespaces/{namespace}/"
		}
		p += t.resource + "/{name}"
		paths[p] = map[string]any{"patch": map[string]any{
			"x-kubernetes-group-version-kind": map[string]any{"group": t.group, "version": gv.version, "kind": t.kind},
			"parameters": []any{
				map[string]any{"name": "fieldValidation", "in": "query", "schema": map[string]any{"type": "string"}},
				map[string]any{"name": "fieldManager", "in": "query", "schema": map[string]any{"type": "string"}},
				map[string]any{"name": "force", "in": "query", "schema": map[string]any{"type": "boolean"}},
				map[string]any{"name": "dryRun", "in": "query", "schema": map[string]any{"type": "string"}},
			},
			"responses": map[string]any{"200": map[string]any{"description": "OK"}},
		}}
	}
	return map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]any{"title": "Kubernetes (fleetsim)", "version": serverVersion.GitVersion},
		"paths":   paths,
	}
}
