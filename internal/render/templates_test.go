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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

func templateWorld(objs ...client.Object) client.Client {
	cluster := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Name: "east", Namespace: "fleet", Labels: map[string]string{"env": "prod"}}}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "fleet"}, Data: map[string]string{"color": "blue"}}
	perCluster := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "east-values", Namespace: "fleet"}, Data: map[string]string{"v": "region: eu"}}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(4))}, Status: appsv1.DeploymentStatus{ReadyReplicas: 2}}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append([]client.Object{cluster, settings, perCluster, deploy}, objs...)...).Build()
}

func ptr[T any](v T) *T { return &v }

func templatedSummary(spec configv1beta1.Spec) *configv1beta1.ClusterSummary {
	return &configv1beta1.ClusterSummary{
		ObjectMeta: metav1.ObjectMeta{Name: "p-sveltos-east", Namespace: "fleet"},
		Spec: configv1beta1.ClusterSummarySpec{ClusterNamespace: "fleet", ClusterName: "east",
			ClusterType: libv1beta1.ClusterTypeSveltos, ClusterProfileSpec: spec},
	}
}

var refs = []configv1beta1.TemplateResourceRef{
	{Identifier: "cfg", Resource: corev1.ObjectReference{Kind: "ConfigMap", Name: "settings"}},
	{Identifier: "web", Resource: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "web"}, IgnoreStatusChanges: true},
	{Identifier: "gone", Resource: corev1.ObjectReference{Kind: "ConfigMap", Name: "nothing"}, Optional: true},
}

func TestChartsInstantiateValues(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		values    string
		valuesRef []configv1beta1.ValueFrom
		extra     []client.Object
		want      map[string]any
		wantErr   string
		permanent bool
	}{
		{name: "cluster label", values: "env: {{ .Cluster.metadata.labels.env }}", want: map[string]any{"env": "prod"}},
		{name: "resources", values: `color: {{ (getResource "cfg").data.color }}
replicas: {{ .MgmtResources.web.spec.replicas }}
status: {{ if hasKey (getResource "web") "status" }}yes{{ else }}none{{ end }}
gone: {{ if getResource "gone" }}yes{{ else }}none{{ end }}`,
			want: map[string]any{"color": "blue", "replicas": float64(4), "status": "none", "gone": "none"}},
		{name: "missing key", values: "a: 1\nenv: {{ .Cluster.metadata.labels.tier }}", permanent: true,
			wantErr: `template: chart web values:2:16: executing "chart web values" at <.Cluster.metadata.labels.tier>: map has no entry for key "tier"`},
		{name: "templated valuesFrom name", values: "a: 1",
			valuesRef: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Name: "{{ .Cluster.metadata.name }}-values"}},
			want:      map[string]any{"a": float64(1), "region": "eu"}},
		{name: "plain valuesFrom is not instantiated", values: "a: 1",
			valuesRef: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Name: "plain"}},
			extra:     []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "fleet"}, Data: map[string]string{"v": "b: '{{ x }}'"}}},
			want:      map[string]any{"a": float64(1), "b": "{{ x }}"}},
		{name: "templated valuesFrom merged last", values: "a: 1",
			valuesRef: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Name: "tpl"}, {Kind: "ConfigMap", Name: "plain"}},
			extra: []client.Object{
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tpl", Namespace: "fleet", Annotations: map[string]string{tpl.TemplateAnnotation: "ok"}},
					Data: map[string]string{"v": "a: {{ .ClusterName }}"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "fleet"}, Data: map[string]string{"v": "a: plain"}}},
			want: map[string]any{"a": "east"}},
		{name: "lua valuesFrom refused", values: "a: 1", permanent: true,
			valuesRef: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Name: "lua"}},
			extra: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lua", Namespace: "fleet", Annotations: map[string]string{tpl.LuaAnnotation: "ok"}},
				Data: map[string]string{"v": "function evaluate() end"}}},
			wantErr: "content made by a Lua script (annotation projectsveltos.io/lua) is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := templatedSummary(configv1beta1.Spec{TemplateResourceRefs: refs,
				HelmCharts: []configv1beta1.HelmChart{{ReleaseName: "web", Values: tc.values, ValuesFrom: tc.valuesRef}}})
			charts, err := Charts(ctx, tenancy.Admin(templateWorld(tc.extra...)), cs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if IsPermanent(err) != tc.permanent {
					t.Errorf("IsPermanent = %v", IsPermanent(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if charts[0].Values[k] != v {
					t.Errorf("values[%s] = %#v, want %#v (all: %v)", k, charts[0].Values[k], v, charts[0].Values)
				}
			}
		})
	}
}

func TestTemplateResourceErrors(t *testing.T) {
	ctx := context.Background()
	missing := []configv1beta1.TemplateResourceRef{{Identifier: "x", Resource: corev1.ObjectReference{Kind: "ConfigMap", Name: "nothing"}}}
	cs := templatedSummary(configv1beta1.Spec{TemplateResourceRefs: missing,
		HelmCharts: []configv1beta1.HelmChart{{ReleaseName: "web", Values: "a: {{ .ClusterName }}"}}})
	_, err := Charts(ctx, tenancy.Admin(templateWorld()), cs)
	if err == nil || !strings.Contains(err.Error(), `templateResourceRefs "x": ConfigMap fleet/nothing does not exist`) || IsPermanent(err) {
		t.Errorf("missing object: %v (permanent %v)", err, IsPermanent(err))
	}
	// Without a template, nothing is read.
	cs.Spec.ClusterProfileSpec.HelmCharts[0].Values = "a: 1"
	if _, err := Charts(ctx, tenancy.Admin(templateWorld()), cs); err != nil {
		t.Errorf("plain values: %v", err)
	}
}

func TestPolicySourcesInstantiate(t *testing.T) {
	ctx := context.Background()
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "content", Namespace: "fleet", Annotations: map[string]string{tpl.TemplateAnnotation: ""}},
		Data: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .ClusterName }}', namespace: default}\ndata: {color: {{ .MgmtResources.cfg.data.color }}}\n"}}
	cs := templatedSummary(configv1beta1.Spec{TemplateResourceRefs: refs,
		PolicyRefs: []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "fleet", Name: "content"}}})
	sources, err := PolicySources(ctx, tenancy.Admin(templateWorld(content)), cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(sources[0].Data["cm.yaml"]); !strings.Contains(got, "name: 'east'") || !strings.Contains(got, "color: blue") {
		t.Errorf("instantiated content = %s", got)
	}
	content.Data["cm.yaml"] = "{{ if }}"
	_, err = PolicySources(ctx, tenancy.Admin(templateWorld(content)), cs)
	if err == nil || !strings.Contains(err.Error(), "template: ConfigMap fleet/content key cm.yaml:1: missing value for if") || !IsPermanent(err) {
		t.Errorf("syntax error: %v", err)
	}
}

// A version's frozen copy is what templates read, not the object as it is now.
func TestTemplateReadsFrozenCopy(t *testing.T) {
	ctx := context.Background()
	c := templateWorld()
	spec := configv1beta1.Spec{TemplateResourceRefs: []configv1beta1.TemplateResourceRef{
		{Identifier: "cfg", Resource: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "fleet", Name: "settings"}}},
		HelmCharts: []configv1beta1.HelmChart{{ReleaseName: "web", Values: `color: {{ (getResource "cfg").data.color }}`}}}
	contents, err := freeze.ReadSpec(ctx, tenancy.Admin(c), &spec)
	if err != nil {
		t.Fatal(err)
	}
	owner := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "uid"}}
	names, err := freeze.Ensure(ctx, c, c.Scheme(), freeze.Owner{Object: owner, Kind: "ClusterProfile"}, contents)
	if err != nil || len(names) != 1 {
		t.Fatalf("ensure: %v %v", names, err)
	}
	settings := &corev1.ConfigMap{}
	_ = c.Get(ctx, client.ObjectKey{Namespace: "fleet", Name: "settings"}, settings)
	settings.Data["color"] = "red"
	if err := c.Update(ctx, settings); err != nil {
		t.Fatal(err)
	}
	color := func(cs *configv1beta1.ClusterSummary) any {
		t.Helper()
		charts, err := Charts(ctx, tenancy.Admin(c), cs)
		if err != nil {
			t.Fatal(err)
		}
		return charts[0].Values["color"]
	}
	// Through spec.frozenContent, as a profile's summaries read it.
	cs := templatedSummary(spec)
	cs.Spec.FrozenContent = freeze.Encode(names)
	if got := color(cs); got != "blue" {
		t.Errorf("through frozenContent: %v", got)
	}
	// Through a spec pointed at the copy, as a promotion's stage profile has it.
	frozen := *spec.DeepCopy()
	freeze.FreezeSpec(&frozen, names)
	if frozen.TemplateResourceRefs[0].Resource.Kind != "Secret" {
		t.Fatalf("frozen spec: %+v", frozen.TemplateResourceRefs[0])
	}
	if got := color(templatedSummary(frozen)); got != "blue" {
		t.Errorf("through the frozen spec: %v", got)
	}
	// Live, without a copy.
	if got := color(templatedSummary(spec)); got != "red" {
		t.Errorf("live: %v", got)
	}
}

// As upstream's sample 129 does: the chart version and the release name are templates.
func TestChartFieldsInstantiate(t *testing.T) {
	cs := templatedSummary(configv1beta1.Spec{TemplateResourceRefs: refs, HelmCharts: []configv1beta1.HelmChart{{
		ReleaseName: "web-{{ .Cluster.metadata.labels.env }}", ReleaseNamespace: "web", RepositoryURL: "https://charts.example/",
		ChartName: "example/web", ChartVersion: "{{- index (getResource `cfg`).data `color` -}}"}}})
	charts, err := Charts(context.Background(), tenancy.Admin(templateWorld()), cs)
	if err != nil {
		t.Fatal(err)
	}
	if hc := charts[0].Chart; hc.ReleaseName != "web-prod" || hc.ChartVersion != "blue" || hc.ChartName != "example/web" {
		t.Errorf("chart %+v", hc)
	}
	if cs.Spec.ClusterProfileSpec.HelmCharts[0].ReleaseName != "web-{{ .Cluster.metadata.labels.env }}" {
		t.Error("the summary's spec was changed")
	}
}
