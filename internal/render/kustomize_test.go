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
	"archive/tar"
	"bytes"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// tarOf packs files into a plain tar archive.
func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func configMap(name string, annotations map[string]string, data map[string]string, binary map[string][]byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: annotations}, Data: data, BinaryData: binary}
}

func summaryWith(spec configv1beta1.Spec) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "p-sveltos-dev"}}
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "dev", "dev"
	cs.Spec.ClusterProfileSpec = spec
	return cs
}

// mark instantiates "@" as "instantiated".
func mark(text string) (string, error) { return strings.ReplaceAll(text, "@", "instantiated"), nil }

func TestPatches(t *testing.T) {
	template := map[string]string{libv1beta1.PolicyTemplateAnnotation: "ok"}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		configMap("plain", nil, map[string]string{"b": "patch: '[{\"op\": \"add\", \"path\": \"/x\", \"value\": 1}]'\ntarget: {kind: ConfigMap}", "a": "patch: |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}"}, nil),
		configMap("templated", template, map[string]string{"p": "patch: |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: '@'}"}, nil),
		configMap("not-a-patch", nil, map[string]string{"p": "op: add\npath: /x"}, nil),
		configMap("bad-patch", nil, map[string]string{"p": "patch: '- op: add'"}, nil),
	).Build()
	ref := func(name string) configv1beta1.ValueFrom {
		return configv1beta1.ValueFrom{Kind: "ConfigMap", Namespace: "default", Name: name}
	}
	tests := []struct {
		name    string
		spec    configv1beta1.Spec
		inst    Instantiate
		want    []string // each patch's source
		wantErr string
	}{
		{
			name: "patches, then patchesFrom in list and key order",
			spec: configv1beta1.Spec{
				Patches:     []libv1beta1.Patch{{Patch: "apiVersion: v1\nkind: Secret\nmetadata: {name: s}"}},
				PatchesFrom: []configv1beta1.ValueFrom{ref("plain"), {Kind: "Secret", Name: "missing", Optional: true}},
			},
			want: []string{"patches[0]", `patchesFrom ConfigMap default/plain key "a"`, `patchesFrom ConfigMap default/plain key "b"`},
		},
		{
			name: "a templated source is instantiated",
			spec: configv1beta1.Spec{PatchesFrom: []configv1beta1.ValueFrom{ref("templated")}},
			inst: mark,
			want: []string{`patchesFrom ConfigMap default/templated key "p"`},
		},
		{
			name:    "a templated source without templates",
			spec:    configv1beta1.Spec{PatchesFrom: []configv1beta1.ValueFrom{ref("templated")}},
			wantErr: "is annotated projectsveltos.io/template: templates are not supported",
		},
		{
			name:    "a key that is not a patch",
			spec:    configv1beta1.Spec{PatchesFrom: []configv1beta1.ValueFrom{ref("not-a-patch")}},
			wantErr: `patchesFrom ConfigMap default/not-a-patch key "p" is not a patch`,
		},
		{
			name:    "a patch that does not parse",
			spec:    configv1beta1.Spec{PatchesFrom: []configv1beta1.ValueFrom{ref("bad-patch")}},
			wantErr: `key "p": JSON 6902 operation 0 has no path`,
		},
		{
			name:    "a missing source",
			spec:    configv1beta1.Spec{PatchesFrom: []configv1beta1.ValueFrom{ref("nowhere")}},
			wantErr: "ConfigMap default/nowhere does not exist",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Patches(t.Context(), tenancy.Admin(c), summaryWith(tt.spec), tt.inst)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var sources []string
			for _, p := range got {
				sources = append(sources, p.Source)
			}
			if strings.Join(sources, "|") != strings.Join(tt.want, "|") {
				t.Errorf("patches from %v, want %v", sources, tt.want)
			}
			if tt.inst != nil && !strings.Contains(got[0].Text, "name: 'instantiated'") {
				t.Errorf("not instantiated: %q", got[0].Text)
			}
		})
	}
}

func TestKustomizeRequests(t *testing.T) {
	app := map[string]string{
		"base/kustomization.yaml": "resources: [cm.yaml]\n",
		"base/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: \"{{ .A }}\", b: \"{{ .B }}\", c: \"{{ .C }}\"}\n",
	}
	template := map[string]string{libv1beta1.PolicyTemplateAnnotation: "ok"}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		configMap("app", nil, nil, map[string][]byte{KustomizeKey: tarOf(t, app)}),
		configMap("no-key", nil, map[string]string{"other": "x"}, nil),
		configMap("static", nil, map[string]string{"B": "static-b", "C": "static-c"}, nil),
		configMap("dynamic", template, map[string]string{"A": "dyn-@", "B": "dyn-b"}, nil),
	).Build()
	kref := func(name string) configv1beta1.KustomizationRef {
		return configv1beta1.KustomizationRef{Kind: "ConfigMap", Namespace: "default", Name: name, Path: "base", TargetNamespace: "target"}
	}
	withValues := kref("app")
	withValues.Values = map[string]string{"A": "inline-a", "B": "inline-b", "C": "inline-c"}
	withValues.ValuesFrom = []configv1beta1.ValueFrom{{Kind: "ConfigMap", Namespace: "default", Name: "static"}, {Kind: "ConfigMap", Namespace: "default", Name: "dynamic"}}
	local := kref("app")
	local.DeploymentType, local.Values = configv1beta1.DeploymentTypeLocal, map[string]string{"A": "1", "B": "2", "C": "3"}
	tests := []struct {
		name              string
		refs              []configv1beta1.KustomizationRef
		remote, localData string // data of the ConfigMap deployed to each, "" for none
		wantErr           string
	}{
		{
			name:   "static valuesFrom over templated valuesFrom over values",
			refs:   []configv1beta1.KustomizationRef{withValues},
			remote: "map[a:dyn-instantiated b:static-b c:static-c]",
		},
		{name: "deploymentType Local", refs: []configv1beta1.KustomizationRef{local}, localData: "map[a:1 b:2 c:3]"},
		{name: "no tarball key", refs: []configv1beta1.KustomizationRef{kref("no-key")}, wantErr: "ConfigMap default/no-key has no key kustomize.tar.gz"},
		{name: "a value missing", refs: []configv1beta1.KustomizationRef{{Kind: "ConfigMap", Namespace: "default", Name: "app", Path: "base", Values: map[string]string{"A": "x"}}},
			wantErr: "substituting values in ConfigMap settings"},
		{name: "a kind that holds no kustomization", refs: []configv1beta1.KustomizationRef{{Kind: "Deployment", Namespace: "f", Name: "r"}},
			wantErr: "kustomizationRef Deployment f/r: only ConfigMap, Secret, GitRepository, OCIRepository and Bucket"},
		{name: "a remote URL", refs: []configv1beta1.KustomizationRef{{RemoteURL: &configv1beta1.RemoteKustomizeURL{URL: "https://example.com/k.tgz"}}}, wantErr: "remote URLs are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := summaryWith(configv1beta1.Spec{KustomizationRefs: tt.refs})
			ks, err := Kustomizations(t.Context(), tenancy.Admin(c), cs)
			if err == nil {
				r, l, kerr := KustomizeRequests(cs, ks, nil, mark)
				err = kerr
				if err == nil {
					if got := dataOf(r.Objects); got != tt.remote {
						t.Errorf("remote data %q, want %q", got, tt.remote)
					}
					if got := dataOf(l.Objects); got != tt.localData {
						t.Errorf("local data %q, want %q", got, tt.localData)
					}
					for _, o := range append(r.Objects, l.Objects...) {
						if o.Manifest.GetNamespace() != "target" || o.Source != "ConfigMap default/app" {
							t.Errorf("object %s/%s from %s", o.Manifest.GetNamespace(), o.Manifest.GetName(), o.Source)
						}
					}
					if !strings.HasSuffix(r.Owner, ":Kustomize") || l.Owner != r.Owner+":Local" {
						t.Errorf("owners %q %q", r.Owner, l.Owner)
					}
				}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !IsPermanent(err) {
					t.Fatalf("error %v, want a permanent %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// dataOf gives the data of the one ConfigMap of objs, "" without objects.
func dataOf(objs []manifests.Object) string {
	if len(objs) != 1 {
		return ""
	}
	return fmt.Sprint(objs[0].Manifest.Object["data"])
}
