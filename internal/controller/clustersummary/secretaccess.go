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
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/health"
)

var subjectAccessReviews = schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}

// secretAccess says which Secrets of the managed cluster a check of this summary may see:
// every one for a platform admin's profile (nil), and for a tenant's, those its
// ServiceAccount may get there, as the managed cluster's own authorizer answers a
// SubjectAccessReview. A tenant without a ServiceAccount (a Profile without tenant labels)
// may read none, nor may anyone when the review cannot be made.
func (d *deployment) secretAccess() health.SecretAccess {
	t, tenant, err := configv1beta1.SummaryTenant(d.cs)
	if !tenant && err == nil {
		return nil
	}
	user := t.User()
	return func(ctx context.Context, namespace, name string) (bool, error) {
		if user == "" {
			return false, nil
		}
		review := &authorizationv1.SubjectAccessReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + t.ServiceAccount.Namespace, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: namespace, Name: name, Verb: "get", Resource: "secrets",
				},
			},
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(review)
		if err != nil {
			return false, err
		}
		res, err := d.remote.Dynamic.Resource(subjectAccessReviews).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			return false, fmt.Errorf("reviewing %s's access to Secret %s/%s: %w", user, namespace, name, err)
		}
		allowed, _, _ := unstructured.NestedBool(res.Object, "status", "allowed")
		return allowed, nil
	}
}
