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

package dashboard

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kindInfo is how the API server serves a kind the dashboard shows.
type kindInfo struct {
	resource   schema.GroupResource
	namespaced bool
}

func (k kindInfo) name() string {
	if k.resource.Group == "" {
		return k.resource.Resource
	}
	return k.resource.Resource + "." + k.resource.Group
}

// allowed asks the API server (SubjectAccessReview) whether v may verb the resource in namespace
// (every namespace when empty), and remembers the answer briefly.
func (a *authenticator) allowed(ctx context.Context, v *Viewer, verb string, k kindInfo, namespace string) (bool, error) {
	key := v.key + "\x00" + verb + "\x00" + k.resource.String() + "\x00" + namespace
	if got, ok := a.decisions.Get(key); ok {
		return got.(bool), nil
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: v.Name, UID: v.UID, Groups: v.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Group: k.resource.Group, Resource: k.resource.Resource},
	}}
	if len(v.Extra) > 0 {
		sar.Spec.Extra = map[string]authorizationv1.ExtraValue{}
		for name, values := range v.Extra {
			sar.Spec.Extra[name] = values
		}
	}
	if err := a.Reviewer.Create(ctx, sar); err != nil {
		return false, fmt.Errorf("asking the API server whether %s may %s %s: %w", v.Name, verb, k.name(), err)
	}
	a.decisions.Add(key, sar.Status.Allowed, accessTTL)
	return sar.Status.Allowed, nil
}

// read is what the request of ctx may read: the dashboard's cache as the viewer may see it, or
// the whole cache when the dashboard does not authenticate.
func (s *Server) read(ctx context.Context) client.Reader {
	if v := viewerOf(ctx); v != nil && s.auth != nil {
		return &viewerReader{src: s.src, auth: s.auth, v: v}
	}
	return s.src
}

// viewerReader reads the dashboard's cache as a viewer may: a kind in every namespace if the
// viewer may list it there, a namespaced kind in the namespaces where it may, an object if it
// may get it.
type viewerReader struct {
	src  *Source
	auth *authenticator
	v    *Viewer
}

func (r *viewerReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	k, err := r.src.kind(obj)
	if err != nil {
		return err
	}
	namespace := ""
	if k.namespaced {
		namespace = key.Namespace
	}
	switch ok, err := r.auth.allowed(ctx, r.v, "get", k, namespace); {
	case err != nil:
		return err
	case !ok:
		return &deniedError{fmt.Sprintf("not shown: %s may not get %s%s", r.v.Name, k.name(), inNamespace(namespace))}
	}
	return r.src.reader.Get(ctx, key, obj, opts...)
}

func (r *viewerReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	k, err := r.src.kind(list)
	if err != nil {
		return err
	}
	namespace := ""
	if k.namespaced {
		namespace = (&client.ListOptions{}).ApplyOptions(opts).Namespace
	}
	switch ok, err := r.auth.allowed(ctx, r.v, "list", k, namespace); {
	case err != nil:
		return err
	case ok:
		return r.src.reader.List(ctx, list, opts...)
	case !k.namespaced || namespace != "":
		return &deniedError{fmt.Sprintf("not shown: %s may not list %s%s", r.v.Name, k.name(), inNamespace(namespace))}
	}
	// A namespaced kind the viewer may not list in every namespace: those of the namespaces
	// where it may.
	if err := r.src.reader.List(ctx, list, opts...); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kept := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok {
			continue
		}
		switch ok, err := r.auth.allowed(ctx, r.v, "list", k, obj.GetNamespace()); {
		case err != nil:
			return err
		case ok:
			kept = append(kept, item)
		}
	}
	return meta.SetList(list, kept)
}

func inNamespace(namespace string) string {
	if namespace == "" {
		return ""
	}
	return " in namespace " + namespace
}

// denied says what the page cannot show the request's viewer: what the dashboard's own identity
// may not watch, and what the viewer may not list in every namespace.
func (s *Server) denied(ctx context.Context) ([]string, error) {
	out := s.src.Denied()
	v := viewerOf(ctx)
	if v == nil || s.auth == nil {
		return out, nil
	}
	for _, k := range s.src.kinds {
		switch ok, err := s.auth.allowed(ctx, v, "list", k, ""); {
		case err != nil:
			return nil, err
		case ok:
		case k.namespaced:
			out = append(out, fmt.Sprintf("shown only in the namespaces where %s may list them: %s", v.Name, k.name()))
		default:
			out = append(out, fmt.Sprintf("not shown: %s may not list %s", v.Name, k.name()))
		}
	}
	slices.Sort(out)
	return out, nil
}
