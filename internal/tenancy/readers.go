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

// Package tenancy reads the management cluster as a profile's tenant. What a tenant's profile
// references (ConfigMaps, Secrets, the objects of templateResourceRefs, Flux sources) is read as
// its ServiceAccount, impersonated and uncached, so that the API server's RBAC decides, and a
// RoleBinding removed takes effect at the next read. What the controller keeps for itself
// (frozen copies, the cluster objects) is read with its own identity.
package tenancy

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Readers are the two identities a profile's content is read with, kept apart.
type Readers struct {
	// Controller reads what the controller made or keeps itself: frozen copies, clusters.
	Controller client.Reader
	// Tenant reads what the profile references: as the tenant's ServiceAccount for a tenant's
	// profile, confined to its namespace for a Profile without one, as the controller for a
	// platform admin's.
	Tenant client.Reader
	// Who names the identity Tenant reads as, for messages ("ServiceAccount ns/name"); empty
	// when it is the controller.
	Who string
	// Copies, when set, are the labels of the frozen copies the profile's spec may name
	// directly (a promotion's stage profile names its promotion's copies): a named object
	// carrying all of them is read as the Controller, since the controller made it from content
	// the same tenant read.
	Copies map[string]string
}

// Admin are the Readers of a platform admin's profile: the controller reads everything.
func Admin(c client.Reader) Readers { return Readers{Controller: c, Tenant: c} }

// As says whom a read went through, for messages: " as ServiceAccount ns/name", or nothing.
func (r Readers) As() string {
	if r.Who == "" {
		return ""
	}
	return " as " + r.Who
}

// Referenced is the reader of objects the profile's spec names: Tenant's, except for the
// profile's own frozen copies (Copies).
func (r Readers) Referenced() client.Reader {
	if r.Copies == nil {
		return r.Tenant
	}
	return referenced{r}
}

// MayReadCopy says whether the profile may read, through the controller, a frozen copy its
// spec names itself: a profile read as the controller (an admin's, or a Profile confined to
// its namespace) may; a tenant's only for its own promotion's copies (Copies), so that naming
// another rollout's copy reads nothing the tenant could not.
func (r Readers) MayReadCopy(obj client.Object) bool {
	return r.Who == "" || hasLabels(obj, r.Copies)
}

type referenced struct{ r Readers }

func (c referenced) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	// Only a name a copy may have is tried as the controller first: any other read would have
	// the controller fetch, and keep in its Secret cache, whatever the tenant names.
	if copyName.MatchString(key.Name) {
		if err := c.r.Controller.Get(ctx, key, obj, opts...); err == nil && hasLabels(obj, c.r.Copies) {
			return nil
		}
	}
	return c.r.Tenant.Get(ctx, key, obj, opts...)
}

// copyName is how the name of every frozen copy ends (see package freeze).
var copyName = regexp.MustCompile(`-[0-9a-f]{10}$`)

func (c referenced) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.r.Tenant.List(ctx, list, opts...)
}

func hasLabels(obj client.Object, want map[string]string) bool {
	labels := obj.GetLabels()
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return len(want) > 0
}

// RefusedError is a read a Profile without a ServiceAccount may not do: outside its namespace,
// or of a cluster-scoped object. Retrying cannot help; the spec must change.
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

// IsRefused reports whether err is, or wraps, a RefusedError.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// confined reads as the controller, but only namespaced objects of one namespace.
type confined struct {
	namespace string
	c         client.Client
}

func (c confined) check(obj runtime.Object, namespace, what string) error {
	namespaced, err := c.c.IsObjectNamespaced(obj)
	if err != nil {
		return err
	}
	gvk, _ := c.c.GroupVersionKindFor(obj)
	switch {
	case !namespaced:
		return &RefusedError{fmt.Sprintf("%s %s is cluster-scoped: a Profile without a ServiceAccount (labels %s) reads only namespace %q",
			gvk.Kind, what, labelNames, c.namespace)}
	case namespace != c.namespace:
		return &RefusedError{fmt.Sprintf("%s %s/%s is outside namespace %q, the only one a Profile without a ServiceAccount (labels %s) reads",
			gvk.Kind, namespace, what, c.namespace, labelNames)}
	}
	return nil
}

func (c confined) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.check(obj, key.Namespace, key.Name); err != nil {
		return err
	}
	return c.c.Get(ctx, key, obj, opts...)
}

// List is refused: no read of a profile's references lists, and a list's scope is not a key's.
func (c confined) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return &RefusedError{fmt.Sprintf("a Profile without a ServiceAccount (labels %s) does not list objects", labelNames)}
}
