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

// Package fleetv1 gives tests a client that reads and writes the Kubefleet kinds as
// placement.kubernetes-fleet.io/v1 and cluster.kubernetes-fleet.io/v1 through the API server, the
// version Kubefleet's docs write, while the test code keeps the v1beta1 Go types: a typed object
// goes out as an unstructured v1 object and comes back typed. Kinds served at v1beta1 only pass
// through unchanged.
package fleetv1

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

const version = "v1"

// Client wraps c so that every Kubefleet kind it reads or writes goes through version v1.
func Client(c client.Client) client.Client { return &v1Client{Client: c} }

type v1Client struct {
	client.Client
	served sync.Map // schema.GroupKind -> bool: served at v1
}

// target returns the v1 kind of obj (a List kind for lists) when obj is a Kubefleet kind, at
// v1beta1, that the server serves at v1.
func (c *v1Client) target(obj runtime.Object) (schema.GroupVersionKind, bool) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil || !strings.HasSuffix(gvk.Group, ".kubernetes-fleet.io") || gvk.Version != "v1beta1" {
		return gvk, false
	}
	gk := schema.GroupKind{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List")}
	served, ok := c.served.Load(gk)
	if !ok {
		_, err := c.RESTMapper().RESTMapping(gk, version)
		served = err == nil
		c.served.Store(gk, served)
	}
	gvk.Version = version
	return gvk, served.(bool)
}

// via calls call with obj as a v1 object, and copies what the server returned back into obj.
func (c *v1Client) via(obj client.Object, call func(client.Object) error) error {
	gvk, ok := c.target(obj)
	if !ok {
		return call(obj)
	}
	if u, isU := obj.(*unstructured.Unstructured); isU {
		u.SetGroupVersionKind(gvk)
		return call(u)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	if err := call(u); err != nil {
		return err
	}
	return fromUnstructured(u.Object, obj)
}

// fromUnstructured replaces obj with content, leaving its type meta empty as the typed client does.
func fromUnstructured(content map[string]any, obj runtime.Object) error {
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type()))
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}

// fixedPatch is a patch computed from the typed object, before it went out as unstructured.
type fixedPatch struct {
	client.Patch
	data []byte
	err  error
}

func (p fixedPatch) Data(client.Object) ([]byte, error) { return p.data, p.err }

func freeze(patch client.Patch, obj client.Object) client.Patch {
	data, err := patch.Data(obj)
	return fixedPatch{Patch: patch, data: data, err: err}
}

func (c *v1Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.via(obj, func(o client.Object) error { return c.Client.Get(ctx, key, o, opts...) })
}

func (c *v1Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.via(obj, func(o client.Object) error { return c.Client.Create(ctx, o, opts...) })
}

func (c *v1Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.via(obj, func(o client.Object) error { return c.Client.Update(ctx, o, opts...) })
}

func (c *v1Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	patch = freeze(patch, obj)
	return c.via(obj, func(o client.Object) error { return c.Client.Patch(ctx, o, patch, opts...) })
}

func (c *v1Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return c.via(obj, func(o client.Object) error { return c.Client.Delete(ctx, o, opts...) })
}

func (c *v1Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return c.via(obj, func(o client.Object) error { return c.Client.DeleteAllOf(ctx, o, opts...) })
}

func (c *v1Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, ok := c.target(list)
	if !ok {
		return c.Client.List(ctx, list, opts...)
	}
	if u, isU := list.(*unstructured.UnstructuredList); isU {
		u.SetGroupVersionKind(gvk)
		return c.Client.List(ctx, u, opts...)
	}
	u := &unstructured.UnstructuredList{}
	u.SetGroupVersionKind(gvk)
	if err := c.Client.List(ctx, u, opts...); err != nil {
		return err
	}
	return fromUnstructured(u.UnstructuredContent(), list)
}

func (c *v1Client) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *v1Client) SubResource(name string) client.SubResourceClient {
	return &subResource{SubResourceClient: c.Client.SubResource(name), c: c}
}

// subResource writes a subresource (the status) of a Kubefleet kind through v1. Get and Create,
// which take a second object, pass through unchanged.
type subResource struct {
	client.SubResourceClient
	c *v1Client
}

func (s *subResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return s.c.via(obj, func(o client.Object) error { return s.SubResourceClient.Update(ctx, o, opts...) })
}

func (s *subResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	patch = freeze(patch, obj)
	return s.c.via(obj, func(o client.Object) error { return s.SubResourceClient.Patch(ctx, o, patch, opts...) })
}
