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

package v1beta1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Tenant is whom a profile belongs to when it is not a platform admin's: a ClusterProfile with
// tenant labels (ServiceAccountNameLabel and ServiceAccountNamespaceLabel), or any Profile.
// What a tenant's profile reads on the management cluster, and the Local content it deploys
// there, is read and written as its ServiceAccount, impersonated; a Profile is also confined
// to its namespace (ScopeToNamespace). docs/security.md describes the model.
type Tenant struct {
	// Namespace is the namespace a Profile is confined to; empty for a ClusterProfile.
	Namespace string
	// ServiceAccount is the ServiceAccount the tenant acts as; its Name is empty for a Profile
	// without tenant labels, which reads only its own namespace.
	ServiceAccount types.NamespacedName
}

// User is the username the tenant's ServiceAccount authenticates as, empty when it names none.
func (t Tenant) User() string {
	if t.ServiceAccount.Name == "" {
		return ""
	}
	return "system:serviceaccount:" + t.ServiceAccount.Namespace + ":" + t.ServiceAccount.Name
}

// String names the tenant in messages.
func (t Tenant) String() string {
	switch {
	case t.ServiceAccount.Name != "":
		return "ServiceAccount " + t.ServiceAccount.String()
	case t.Namespace != "":
		return "namespace " + t.Namespace
	}
	return "platform admin"
}

// TenantOf says whose a profile (or a ClusterSummary, which carries its profile's labels) is:
// a tenant's, or a platform admin's (false). namespaced is true for a Profile and its
// summaries. Half a pair of tenant labels, or a Profile naming a ServiceAccount of another
// namespace, is an error: the profile must not run as anyone until it is fixed.
func TenantOf(obj metav1.Object, namespaced bool) (Tenant, bool, error) {
	name, ns := obj.GetLabels()[ServiceAccountNameLabel], obj.GetLabels()[ServiceAccountNamespaceLabel]
	var t Tenant
	if namespaced {
		t.Namespace = obj.GetNamespace()
	}
	switch {
	case (name == "") != (ns == ""):
		return t, false, fmt.Errorf("the tenant labels %s and %s go together: set both or neither",
			ServiceAccountNameLabel, ServiceAccountNamespaceLabel)
	case name == "":
		return t, namespaced, nil
	case namespaced && ns != t.Namespace:
		return t, false, fmt.Errorf("a Profile acts as a ServiceAccount of its own namespace %q, and its label %s names %q",
			t.Namespace, ServiceAccountNamespaceLabel, ns)
	}
	t.ServiceAccount = types.NamespacedName{Namespace: ns, Name: name}
	return t, true, nil
}

// SummaryTenant is TenantOf for a ClusterSummary: a Profile's summaries carry ProfileNameLabel.
func SummaryTenant(cs *ClusterSummary) (Tenant, bool, error) {
	return TenantOf(cs, cs.Labels[ProfileNameLabel] != "")
}
