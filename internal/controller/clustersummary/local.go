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

package clustersummary

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// tenants caches one impersonating connection to the management cluster per ServiceAccount.
type tenants struct {
	mu     sync.Mutex
	byUser map[string]*fleet.Remote
}

// local returns the connection deploymentType Local content goes through: the management
// cluster as the ServiceAccount the profile names, so that a profile can deploy there only what
// that ServiceAccount may; or, if the controller was started with --local-deployment-as-controller,
// as the controller itself.
func (d *deployment) local() (*fleet.Remote, error) {
	if d.r.management == nil {
		return nil, permanent(errors.New("deploymentType Local is not available: the controller has no connection to the management cluster"))
	}
	name, ns := d.cs.Labels[configv1beta1.ServiceAccountNameLabel], d.cs.Labels[configv1beta1.ServiceAccountNamespaceLabel]
	switch {
	case name != "" && ns != "":
		return d.r.tenant("system:serviceaccount:" + ns + ":" + name)
	case d.r.localAsController:
		return d.r.management, nil
	}
	return nil, permanent(fmt.Errorf("deploymentType Local deploys to the management cluster as the ServiceAccount named by the profile's labels %s and %s, "+
		"and the profile has neither; label it with a ServiceAccount allowed to create what it deploys (or run the controller with --local-deployment-as-controller)",
		configv1beta1.ServiceAccountNameLabel, configv1beta1.ServiceAccountNamespaceLabel))
}

func (r *Reconciler) tenant(user string) (*fleet.Remote, error) {
	r.tenants.mu.Lock()
	defer r.tenants.mu.Unlock()
	if t, ok := r.tenants.byUser[user]; ok {
		return t, nil
	}
	if err := r.mayImpersonate(user); err != nil {
		return nil, err
	}
	t, err := r.management.Impersonating(user)
	if err != nil {
		return nil, err
	}
	if r.tenants.byUser == nil {
		r.tenants.byUser = map[string]*fleet.Remote{}
	}
	r.tenants.byUser[user] = t
	return t, nil
}

// withImpersonationHint adds, to the API server's refusal to let the controller act as a
// tenant's ServiceAccount, which chart value grants it.
func withImpersonationHint(msg string) string {
	if !strings.Contains(msg, `cannot impersonate resource "serviceaccounts"`) || strings.Contains(msg, "tenancy.serviceAccounts") {
		return msg
	}
	return msg + "; the controller may act only as the ServiceAccounts that the Helm chart's values " +
		"tenancy.serviceAccounts (by name) and tenancy.namespaces (every ServiceAccount of a namespace) list: add this one to either"
}

// mayImpersonate asks the management cluster whether the controller may act as user, a tenant's
// ServiceAccount: a refused impersonation otherwise surfaces from discovery as a bare "unknown".
func (r *Reconciler) mayImpersonate(user string) error {
	parts := strings.Split(user, ":")
	if len(parts) != 4 {
		return nil // not a ServiceAccount: the API server will say
	}
	ns, name := parts[2], parts[3]
	authz, err := authorizationv1client.NewForConfig(r.management.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleet.RequestTimeout)
	defer cancel()
	review, err := authz.SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "impersonate", Resource: "serviceaccounts", Namespace: ns, Name: name}},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("asking whether the controller may act as ServiceAccount %s/%s: %w", ns, name, err)
	}
	if review.Status.Allowed {
		return nil
	}
	return errors.New(withImpersonationHint(fmt.Sprintf(
		`the controller cannot impersonate resource "serviceaccounts" %q in the namespace %q, so it cannot act as ServiceAccount %s/%s`,
		name, ns, ns, name)))
}
