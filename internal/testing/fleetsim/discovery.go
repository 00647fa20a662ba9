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
	"cmp"
	"encoding/json"
	"net/http"
	"runtime"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// serverVersion is what /version answers. The "+fleetsim" build suffix says what answers without
// making the version a pre-release, which chart kubeVersion constraints such as ">=1.25.0" would
// reject.
var serverVersion = version.Info{
	Major:        "1",
	Minor:        "36",
	GitVersion:   "v1.36.0+fleetsim",
	GitTreeState: "clean",
	GoVersion:    runtime.Version(),
	Compiler:     runtime.Compiler,
	Platform:     runtime.GOOS + "/" + runtime.GOARCH,
}

// aggregatedDiscovery is the content type of aggregated discovery (apidiscovery.k8s.io/v2),
// which answers /api and /apis with every resource at once.
const aggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

var (
	objectVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	statusVerbs = []string{"get", "patch", "update"}
)

// groupVersion is one group/version of a cluster and the resources it serves.
type groupVersion struct {
	group, version string
	types          []*resourceType
}

// servedGroupVersions lists what a cluster serves: the built-in groups, then the groups of its
// CustomResourceDefinitions, sorted.
func (c *Cluster) servedGroupVersions() []groupVersion {
	types := slices.Clone(builtinTypes)
	c.mu.Lock()
	if c.data != nil {
		var custom []*resourceType
		for _, t := range c.data.custom {
			custom = append(custom, t)
		}
		slices.SortFunc(custom, func(a, b *resourceType) int {
			return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.resource, b.resource))
		})
		types = append(types, custom...)
	}
	c.mu.Unlock()
	var gvs []groupVersion
	for _, t := range types {
		for _, v := range t.versions {
			i := slices.IndexFunc(gvs, func(gv groupVersion) bool { return gv.group == t.group && gv.version == v })
			if i < 0 {
				gvs = append(gvs, groupVersion{group: t.group, version: v})
				i = len(gvs) - 1
			}
			gvs[i].types = append(gvs[i].types, t)
		}
	}
	return gvs
}

// serveDiscovery answers /api, /apis and below, in the aggregated form when the client accepts it.
func (c *Cluster) serveDiscovery(w http.ResponseWriter, r *http.Request, path string) {
	gvs := c.servedGroupVersions()
	aggregated := strings.Contains(r.Header.Get("Accept"), "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case path == "/api" && aggregated:
		writeAggregated(w, filterGroups(gvs, func(g string) bool { return g == "" }))
	case path == "/apis" && aggregated:
		writeAggregated(w, filterGroups(gvs, func(g string) bool { return g != "" }))
	case path == "/api":
		writeJSON(w, http.StatusOK, &metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
				{ClientCIDR: "0.0.0.0/0", ServerAddress: c.Host()},
			},
		})
	case path == "/apis":
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		for _, g := range groupsOf(gvs) {
			if g.Name != "" {
				list.Groups = append(list.Groups, g)
			}
		}
		writeJSON(w, http.StatusOK, &list)
	case len(parts) == 2 && parts[0] == "apis":
		for _, g := range groupsOf(gvs) {
			if g.Name == parts[1] {
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				writeJSON(w, http.StatusOK, &g)
				return
			}
		}
		writeError(w, errNoResource("get", schema.GroupResource{Group: parts[1]}))
	case len(parts) == 2 && parts[0] == "api", len(parts) == 3 && parts[0] == "apis":
		group, ver := "", parts[1]
		if len(parts) == 3 {
			group, ver = parts[1], parts[2]
		}
		for _, gv := range gvs {
			if gv.group == group && gv.version == ver {
				writeJSON(w, http.StatusOK, resourceList(gv))
				return
			}
		}
		writeError(w, errNoResource("get", schema.GroupResource{Group: group}))
	default:
		writeError(w, errNoResource("get", schema.GroupResource{}))
	}
}

func filterGroups(gvs []groupVersion, keep func(group string) bool) []groupVersion {
	return slices.DeleteFunc(slices.Clone(gvs), func(gv groupVersion) bool { return !keep(gv.group) })
}

// groupsOf lists the API groups of gvs, each with its versions; the first version is preferred.
func groupsOf(gvs []groupVersion) []metav1.APIGroup {
	var groups []metav1.APIGroup
	for _, gv := range gvs {
		v := metav1.GroupVersionForDiscovery{GroupVersion: apiVersionOf(gv.group, gv.version), Version: gv.version}
		i := slices.IndexFunc(groups, func(g metav1.APIGroup) bool { return g.Name == gv.group })
		if i < 0 {
			groups = append(groups, metav1.APIGroup{Name: gv.group, PreferredVersion: v})
			i = len(groups) - 1
		}
		groups[i].Versions = append(groups[i].Versions, v)
	}
	return groups
}

func apiVersionOf(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

func resourceList(gv groupVersion) *metav1.APIResourceList {
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: apiVersionOf(gv.group, gv.version),
	}
	for _, t := range gv.types {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: t.resource, SingularName: t.singular, Namespaced: t.namespaced, Kind: t.kind,
			Verbs: objectVerbs, ShortNames: t.shortNames, Categories: t.categories,
		})
		if t.status {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: t.resource + "/status", Namespaced: t.namespaced, Kind: t.kind, Verbs: statusVerbs,
			})
		}
	}
	return list
}

func writeAggregated(w http.ResponseWriter, gvs []groupVersion) {
	list := apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
	}
	for _, gv := range gvs {
		i := slices.IndexFunc(list.Items, func(g apidiscoveryv2.APIGroupDiscovery) bool { return g.Name == gv.group })
		if i < 0 {
			list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.group}})
			i = len(list.Items) - 1
		}
		v := apidiscoveryv2.APIVersionDiscovery{Version: gv.version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
		for _, t := range gv.types {
			kind := &metav1.GroupVersionKind{Group: t.group, Version: gv.version, Kind: t.kind}
			scope := apidiscoveryv2.ScopeCluster
			if t.namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			res := apidiscoveryv2.APIResourceDiscovery{
				Resource: t.resource, ResponseKind: kind, Scope: scope, SingularResource: t.singular,
				Verbs: objectVerbs, ShortNames: t.shortNames, Categories: t.categories,
			}
			if t.status {
				res.Subresources = []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: kind, Verbs: statusVerbs}}
			}
			v.Resources = append(v.Resources, res)
		}
		list.Items[i].Versions = append(list.Items[i].Versions, v)
	}
	data, err := json.Marshal(&list)
	if err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, aggregatedDiscovery, data)
}
