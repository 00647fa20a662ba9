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
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

var requestInfos = &apirequest.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// request is one resource request to one cluster, with what the path says.
type request struct {
	c     *Cluster
	w     http.ResponseWriter
	r     *http.Request
	query url.Values
	rt    *resourceType
	// version is the version the client asked for; objects are answered as that version.
	version     string
	namespace   string
	name        string
	subresource string
}

func (q *request) apiVersion() string { return q.rt.apiVersion(q.version) }

// route answers an authenticated request.
func (c *Cluster) route(w http.ResponseWriter, r *http.Request) {
	info, err := requestInfos.NewRequestInfo(r)
	if err != nil {
		writeError(w, errBadRequest("%v", err))
		return
	}
	if !info.IsResourceRequest {
		c.serveNonResource(w, r)
		return
	}
	rt := c.resourceType(info.APIGroup, info.APIVersion, info.Resource)
	if rt == nil {
		writeError(w, errNoResource(info.Verb, schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}))
		return
	}
	q := &request{c: c, w: w, r: r, query: r.URL.Query(), rt: rt, version: info.APIVersion,
		namespace: info.Namespace, name: info.Name, subresource: info.Subresource}
	if rt.groupResource() == namespacesResource {
		// The path of a namespace is /api/v1/namespaces/NAME: a name, not a namespace.
		q.namespace = ""
	}
	switch {
	case q.namespace != "" && !rt.namespaced,
		q.subresource != "" && (q.subresource != "status" || !rt.status),
		q.subresource != "" && q.name == "":
		writeError(w, errNoResource(info.Verb, schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}))
		return
	}
	q.serve(info.Verb)
}

func (q *request) serve(verb string) {
	var err error
	switch {
	case verb == "get":
		err = q.get()
	case verb == "list":
		err = q.list()
	case verb == "watch":
		err = q.watch()
	case verb == "create" && q.name == "":
		err = q.create()
	case verb == "update" && q.name != "":
		err = q.update()
	case verb == "patch" && q.name != "":
		err = q.patch()
	case verb == "delete" && q.name != "":
		err = q.delete()
	case verb == "deletecollection" && q.subresource == "":
		err = q.deleteCollection()
	default:
		err = errMethodNotSupported(q.rt, verb)
	}
	if err != nil {
		writeError(q.w, err)
	}
}

// serveNonResource answers version, discovery, OpenAPI and health requests.
func (c *Cluster) serveNonResource(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errNoResource(strings.ToLower(r.Method), schema.GroupResource{}))
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/version":
		writeJSON(w, http.StatusOK, serverVersion)
	case path == "/healthz" || path == "/livez" || path == "/readyz":
		writeRaw(w, http.StatusOK, "text/plain; charset=utf-8", []byte("ok"))
	case path == "/api" || path == "/apis" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/apis/"):
		c.serveDiscovery(w, r, path)
	case path == "/openapi/v3" || strings.HasPrefix(path, "/openapi/v3/"):
		c.serveOpenAPIV3(w, strings.TrimPrefix(path, "/openapi/v3"))
	default:
		writeError(w, errNoResource("get", schema.GroupResource{}))
	}
}
