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

package helm

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-logr/logr"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/provenance"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
)

// signedRepo serves the test chart, webapp 1.0.0, with a provenance file signed by signer.
func signedRepo(t *testing.T, signer *openpgp.Entity) *httptest.Server {
	t.Helper()
	path, err := chartrepo.Package("../../../testdata/charts/webapp", t.TempDir(), chartrepo.Version{Version: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	archive, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	prov, err := (&provenance.Signatory{Entity: signer}).ClearSign(archive, name, []byte("name: webapp\nversion: 1.0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	digest, err := provenance.Digest(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	idx := repo.NewIndexFile()
	if err := idx.MustAdd(&chart.Metadata{APIVersion: "v2", Name: "webapp", Version: "1.0.0"}, name, "", digest); err != nil {
		t.Fatal(err)
	}
	index, err := yaml.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"/index.yaml": index, "/" + name: archive, "/" + name + ".prov": []byte(prov)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newKey(t *testing.T, name string) (*openpgp.Entity, []byte) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", name+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ring bytes.Buffer
	if err := e.Serialize(&ring); err != nil {
		t.Fatal(err)
	}
	return e, ring.Bytes()
}

func TestFetchVerified(t *testing.T) {
	signer, signerRing := newKey(t, "signer")
	_, strangerRing := newKey(t, "stranger")
	srv := signedRepo(t, signer)
	chartAt := func(url string) configv1beta1.HelmChart {
		return configv1beta1.HelmChart{RepositoryURL: url, ChartName: "webapp", ChartVersion: "1.0.0", ReleaseName: "web", ReleaseNamespace: "web"}
	}
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}

	ch, err := cache.FetchVerified(t.Context(), chartAt(srv.URL), nil, signerRing)
	if err != nil || ch.Metadata.Name != "webapp" {
		t.Fatalf("a chart signed by a key of the keyring: %v", err)
	}
	_, err = cache.FetchVerified(t.Context(), chartAt(srv.URL), nil, strangerRing)
	if err == nil || !strings.Contains(err.Error(), "provenance verification failed") || !IsPermanent(err) {
		t.Errorf("a chart signed by another key: %v", err)
	}

	unsigned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".prov") {
			http.NotFound(w, r)
			return
		}
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer unsigned.Close()
	if _, err := cache.FetchVerified(t.Context(), chartAt(unsigned.URL), nil, signerRing); err == nil || !strings.Contains(err.Error(), "provenance file") {
		t.Errorf("a chart without a provenance file: %v", err)
	}
	if _, err := cache.FetchVerified(t.Context(), chartAt("oci://registry.example/charts"), nil, signerRing); err == nil ||
		!strings.Contains(err.Error(), "needs a chart from an HTTP(S) repository") {
		t.Errorf("an OCI chart: %v", err)
	}

}
