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

package kustomize

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// Tarball packs files into a tar archive, gzip-compressed when gz.
func tarball(t *testing.T, gz bool, files map[string]string) []byte {
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
	if !gz {
		return b.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(b.Bytes())
	_ = zw.Close()
	return z.Bytes()
}

const base = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {color: "{{ .Color }}"}
`

func TestBuild(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		path       string
		components []string
		values     map[string]string
		want       []string // kind/namespace/name, in order
		wantData   string
		wantErr    string
	}{
		{
			name: "kustomization in a subdirectory with a namespace and a prefix",
			files: map[string]string{
				"./app/kustomization.yaml": "namespace: shop\nnamePrefix: dev-\nresources: [cm.yaml]\n",
				"./app/cm.yaml":            base,
			},
			path:     "app",
			values:   map[string]string{"Color": "blue"},
			want:     []string{"ConfigMap/shop/dev-settings"},
			wantData: "blue",
		},
		{
			name:  "plain manifests get a kustomization",
			files: map[string]string{"m/a.yaml": base, "m/b.yml": strings.ReplaceAll(base, "settings", "other"), "m/notes.txt": "x"},
			path:  "m/",
			want:  []string{"ConfigMap//settings", "ConfigMap//other"},
		},
		{
			name: "components are added",
			files: map[string]string{
				"kustomization.yaml":          "resources: [cm.yaml]\n",
				"cm.yaml":                     base,
				"comp/kustomization.yaml":     "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamespace: comp\n",
				"unrelated/kustomization.yml": "resources: [missing.yaml]\n",
			},
			components: []string{"comp"},
			want:       []string{"ConfigMap/comp/settings"},
		},
		{
			name:    "a missing path",
			files:   map[string]string{"kustomization.yaml": "resources: []\n"},
			path:    "nowhere",
			wantErr: `path "nowhere" is not a directory`,
		},
		{
			name:    "a kustomize error",
			files:   map[string]string{"kustomization.yaml": "resources: [missing.yaml]\n"},
			wantErr: `kustomize build of ".":`,
		},
		{
			name:    "a remote base",
			files:   map[string]string{"base/kustomization.yaml": "resources: [cm.yaml]\n", "base/cm.yaml": base, "kustomization.yaml": "resources: [base, https://example.com/cm.yaml]\n"},
			wantErr: `kustomization.yaml refers to "https://example.com/cm.yaml", outside the kustomization's source`,
		},
		{
			name:       "a remote base in github's shorthand, in a component",
			files:      map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": base, "c/kustomization.yaml": "kind: Component\nresources:\n- github.com/org/repo//base?ref=v1\n"},
			components: []string{"c"},
			wantErr:    `c/kustomization.yaml refers to "github.com/org/repo//base?ref=v1"`,
		},
		{
			name: "a remote base in a kustomization that is not built",
			files: map[string]string{"app/kustomization.yaml": "resources: [../base]\n", "base/kustomization.yaml": "resources: [cm.yaml]\n", "base/cm.yaml": base,
				"other/kustomization.yaml": "resources: [git@github.com:org/repo.git]\n"},
			path: "app",
			want: []string{"ConfigMap//settings"},
		},
		{
			name:    "a value that is not given",
			files:   map[string]string{"cm.yaml": base},
			values:  map[string]string{"Other": "x"},
			wantErr: `substituting values in ConfigMap settings`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := ReadTarball(tarball(t, true, tt.files))
			if err != nil {
				t.Fatal(err)
			}
			objs, err := Build(files, tt.path, BuildOptions{Components: tt.components})
			if err == nil {
				objs, err = Substitute(objs, tt.values, nil)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("objects %v, want %v", got, tt.want)
			}
			if tt.wantData != "" && objs[0].Object["data"].(map[string]any)["color"] != tt.wantData {
				t.Errorf("data %v, want color %s", objs[0].Object["data"], tt.wantData)
			}
		})
	}
}

func TestReadTarball(t *testing.T) {
	plain, err := ReadTarball(tarball(t, false, map[string]string{"a/b.yaml": "x", "._b.yaml": "junk", "../up.yaml": "y"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 2 || string(plain["a/b.yaml"]) != "x" || string(plain["up.yaml"]) != "y" {
		t.Errorf("files %v", plain)
	}
	var be *BuildError
	for name, data := range map[string][]byte{
		"not an archive": []byte("hello, this is not a tarball at all, but it is long enough to be read as one...."),
		"empty":          tarball(t, true, nil),
		"bad gzip":       {0x1f, 0x8b, 0, 1, 2},
		"too big":        make([]byte, MaxSize+1),
	} {
		if _, err := ReadTarball(data); !errors.As(err, &be) {
			t.Errorf("%s: error %v, want a BuildError", name, err)
		}
	}
	files, err := FilesFrom(fstest.MapFS{"k/cm.yaml": {Data: []byte(base)}})
	if err != nil || string(files["k/cm.yaml"]) != base {
		t.Errorf("FilesFrom: %v %v", files, err)
	}
}
