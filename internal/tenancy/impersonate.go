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
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// WithImpersonationHint adds, to the API server's refusal to let the controller act as a
// tenant's ServiceAccount, which chart value grants it.
func WithImpersonationHint(msg string) string {
	if !strings.Contains(msg, `cannot impersonate resource "serviceaccounts"`) || strings.Contains(msg, "tenancy.serviceAccounts") {
		return msg
	}
	return msg + "; the controller may act only as the ServiceAccounts that the Helm chart's values " +
		"tenancy.serviceAccounts (by name) and tenancy.namespaces (every ServiceAccount of a namespace) list: add this one to either"
}

// authorization is the client mayImpersonate asks with, made once.
func (t *Tenants) authorization() (authorizationv1client.AuthorizationV1Interface, error) {
	t.authzOnce.Do(func() { t.authz, t.authzErr = authorizationv1client.NewForConfig(t.management.Config) })
	return t.authz, t.authzErr
}

// mayImpersonate asks the management cluster whether the controller may act as user, a tenant's
// ServiceAccount: a refused impersonation otherwise surfaces from discovery as a bare "unknown".
func (t *Tenants) mayImpersonate(user string) error {
	parts := strings.Split(user, ":")
	if len(parts) != 4 {
		return nil // not a ServiceAccount: the API server will say
	}
	ns, name := parts[2], parts[3]
	authz, err := t.authorization()
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
	return errors.New(WithImpersonationHint(fmt.Sprintf(
		`the controller cannot impersonate resource "serviceaccounts" %q in the namespace %q, so it cannot act as ServiceAccount %s/%s`,
		name, ns, ns, name)))
}
