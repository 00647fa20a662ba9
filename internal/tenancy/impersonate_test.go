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
	"strings"
	"testing"
)

// TestImpersonationHint: the API server's refusal to let the controller act as a tenant's
// ServiceAccount says which chart values grant it; other messages are left as they are.
func TestImpersonationHint(t *testing.T) {
	refused := `serviceaccounts "deployer" is forbidden: User "system:serviceaccount:stagecoach-system:stagecoach" ` +
		`cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-c"`
	got := WithImpersonationHint(refused)
	if !strings.HasPrefix(got, refused) || !strings.Contains(got, "tenancy.serviceAccounts") || !strings.Contains(got, "tenancy.namespaces") {
		t.Errorf("hint: %q", got)
	}
	if WithImpersonationHint(got) != got {
		t.Error("the hint is given twice")
	}
	if other := `configmaps "x" not found`; WithImpersonationHint(other) != other {
		t.Error("a message without an impersonation refusal was changed")
	}
}
