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

package tenancy

import (
	"context"
	"errors"
	"sync"

	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

var labelNames = configv1beta1.ServiceAccountNameLabel + " and " + configv1beta1.ServiceAccountNamespaceLabel

// MaxTenants bounds how many tenants' connections are kept at once; the least recently used
// goes first, and is made again when its tenant is next read as.
const MaxTenants = 256

// Tenants gives each profile its Readers, and the connections its Local content is deployed
// through, one kept per tenant user.
type Tenants struct {
	controller client.Client
	management *fleet.Remote
	byUser     *lru.Cache

	authzOnce sync.Once
	authz     authorizationv1client.AuthorizationV1Interface
	authzErr  error
}

type conn struct {
	remote *fleet.Remote
	reader client.Reader
}

// New returns the Tenants of the management cluster: controller is the controller's own
// client, management a connection whose rest.Config impersonation is derived from. management
// may be nil, and every tenant's read then fails.
func New(controller client.Client, management *fleet.Remote) *Tenants {
	return &Tenants{controller: controller, management: management, byUser: lru.New(MaxTenants)}
}

// Remote is the management cluster as user: an uncached connection that impersonates it.
func (t *Tenants) Remote(user string) (*fleet.Remote, error) {
	c, err := t.conn(user)
	if err != nil {
		return nil, err
	}
	return c.remote, nil
}

func (t *Tenants) conn(user string) (conn, error) {
	if c, ok := t.byUser.Get(user); ok {
		return c.(conn), nil
	}
	if t.management == nil {
		return conn{}, errors.New("the controller has no connection to the management cluster to act as a tenant")
	}
	if err := t.mayImpersonate(user); err != nil {
		return conn{}, err
	}
	remote, err := t.management.Impersonating(user)
	if err != nil {
		return conn{}, err
	}
	// No cache: every read asks the API server, which checks the tenant's rights each time.
	reader, err := client.New(remote.Config, client.Options{Scheme: t.controller.Scheme(), Mapper: t.controller.RESTMapper()})
	if err != nil {
		return conn{}, err
	}
	c := conn{remote: remote, reader: reader}
	t.byUser.Add(user, c) // two adds of one user race harmlessly: either connection serves
	return c, nil
}

// Readers are the Readers of a profile whose tenant TenantOf found: a platform admin's profile
// reads as the controller; a Profile without a ServiceAccount as the controller, confined to its
// namespace; any other as its ServiceAccount.
func (t *Tenants) Readers(tenant configv1beta1.Tenant, isTenant bool) (Readers, error) {
	switch {
	case !isTenant:
		return Admin(t.controller), nil
	case tenant.User() == "":
		return Readers{Controller: t.controller, Tenant: confined{namespace: tenant.Namespace, c: t.controller}}, nil
	}
	c, err := t.conn(tenant.User())
	if err != nil {
		return Readers{}, err
	}
	return Readers{Controller: t.controller, Tenant: c.reader, Who: tenant.String()}, nil
}

// Of are the Readers of a profile (namespaced: a Profile, or one of its summaries), with the
// frozen copies labelled copies read as the controller when its promotion (named by
// promotion, empty for none) is the same tenant's. Tenant labels TenantOf rejects are refused.
func (t *Tenants) Of(ctx context.Context, obj client.Object, namespaced bool, promotion string, copies map[string]string) (Readers, error) {
	tenant, isTenant, err := configv1beta1.TenantOf(obj, namespaced)
	if err != nil {
		return Readers{}, &RefusedError{err.Error()}
	}
	r, err := t.Readers(tenant, isTenant)
	if err != nil || promotion == "" {
		return r, err
	}
	p := &configv1beta1.ClusterPromotion{}
	if err := t.controller.Get(ctx, client.ObjectKey{Name: promotion}, p); err != nil {
		return r, client.IgnoreNotFound(err)
	}
	if pt, pIsTenant, err := configv1beta1.TenantOf(p, false); err == nil && pIsTenant == isTenant && pt == tenant {
		r.Copies = copies
	}
	return r, nil
}
