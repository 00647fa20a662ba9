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

package render

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// deny answers every read as the API server answers a tenant it does not let read.
type deny struct{ err error }

func (d deny) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return d.err
}

func (d deny) List(context.Context, client.ObjectList, ...client.ListOption) error { return d.err }

// TestTenantReadsOriginalsAndControllerReadsCopies: the frozen copy a summary's frozenContent
// names is read with the controller's reader; the original, and the objects of
// templateResourceRefs, with the tenant's, whose refusal fails the rendering with its words.
func TestTenantReadsOriginalsAndControllerReadsCopies(t *testing.T) {
	ctx := context.Background()
	forbidden := errors.New(`secrets "v" is forbidden`)
	copied := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "v-0123456789"},
		Data: map[string][]byte{"values.yaml": []byte("color: copied")}}
	rd := tenancy.Readers{Controller: templateWorld(copied), Tenant: deny{forbidden}, Who: "ServiceAccount t/sa"}

	chart := configv1beta1.HelmChart{ReleaseName: "web", ReleaseNamespace: "web",
		ValuesFrom: []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "fleet", Name: "v"}}}
	cs := templatedSummary(configv1beta1.Spec{HelmCharts: []configv1beta1.HelmChart{chart}})
	cs.Spec.FrozenContent = map[string]string{"Secret fleet/v": "v-0123456789"}
	charts, err := Charts(ctx, rd, cs)
	if err != nil || charts[0].Values["color"] != "copied" {
		t.Fatalf("the copy: %v, %v", charts, err)
	}

	cs.Spec.FrozenContent = nil
	_, err = Charts(ctx, rd, cs)
	if !errors.Is(err, forbidden) || !strings.Contains(err.Error(), "reading Secret fleet/v as ServiceAccount t/sa") || IsPermanent(err) {
		t.Errorf("the original: %v, want the tenant's refusal, retried", err)
	}

	chart = configv1beta1.HelmChart{ReleaseName: "web", ReleaseNamespace: "web", Values: `color: '{{ (getResource "s").data.color }}'`}
	cs = templatedSummary(configv1beta1.Spec{HelmCharts: []configv1beta1.HelmChart{chart},
		TemplateResourceRefs: []configv1beta1.TemplateResourceRef{{Identifier: "s",
			Resource: corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "fleet", Name: "settings"}}}})
	_, err = Charts(ctx, rd, cs)
	if !errors.Is(err, forbidden) || !strings.Contains(err.Error(), "as ServiceAccount t/sa") {
		t.Errorf("a templateResourceRef: %v, want the tenant's refusal", err)
	}
	if charts, err := Charts(ctx, tenancy.Admin(templateWorld()), cs); err != nil || charts[0].Values["color"] != "blue" {
		t.Errorf("as the controller: %v, %v", charts, err)
	}
}
