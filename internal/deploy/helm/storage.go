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
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"helm.sh/helm/v4/pkg/release"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// releaseStore stores releases exactly as Helm's Secrets driver does, so that the helm CLI
// and Helm's own driver read them: a Secret of type helm.sh/release.v1 named by the release key,
// labelled with the release's labels, name, owner=helm, status, version and createdAt (on
// create) or modifiedAt (on update), holding under "release" the release's JSON, gzipped and
// base64-encoded. Reading, listing and deleting are Helm's driver's.
//
// Writing differs in how it compresses: Helm's driver makes a new gzip writer at best compression
// for every release it writes, about a megabyte allocated each time. A fleet rollout writes two
// releases per cluster (the new one, and the last one marked superseded); at thousands of
// clusters those writers were a sixth of everything the controller allocated, and its garbage
// collector's work followed. Here writers are reused and compress at gzip's default level, whose
// output is within a few percent of the best.
type releaseStore struct {
	*driver.Secrets
	impl typedcorev1.SecretInterface
}

func newReleaseStore(impl typedcorev1.SecretInterface) *releaseStore {
	return &releaseStore{Secrets: driver.NewSecrets(impl), impl: impl}
}

// Create creates the Secret holding the release; driver.ErrReleaseExists if there is one.
func (s *releaseStore) Create(key string, rel release.Releaser) error {
	obj, err := releaseSecret(key, rel, "createdAt")
	if err != nil {
		return fmt.Errorf("create: failed to encode release %q: %w", key, err)
	}
	if _, err := s.impl.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return driver.ErrReleaseExists
		}
		return fmt.Errorf("create: failed to create: %w", err)
	}
	return nil
}

// Update replaces the Secret holding the release, as Helm's driver does.
func (s *releaseStore) Update(key string, rel release.Releaser) error {
	obj, err := releaseSecret(key, rel, "modifiedAt")
	if err != nil {
		return fmt.Errorf("update: failed to encode release %q: %w", key, err)
	}
	if _, err := s.impl.Update(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update: failed to update: %w", err)
	}
	return nil
}

// releaseSecret is the Secret holding rel under key; stamp is the label given the current time.
func releaseSecret(key string, rel release.Releaser, stamp string) (*corev1.Secret, error) {
	rls, err := v1Release(rel)
	if err != nil {
		return nil, err
	}
	data, err := encodeRelease(rls)
	if err != nil {
		return nil, err
	}
	labels := make(map[string]string, len(rls.Labels)+5)
	for k, v := range rls.Labels {
		labels[k] = v
	}
	labels[stamp] = strconv.FormatInt(time.Now().Unix(), 10)
	labels["name"] = rls.Name
	labels["owner"] = "helm"
	labels["status"] = rls.Info.Status.String()
	labels["version"] = strconv.Itoa(rls.Version)
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: key, Labels: labels},
		Type:       "helm.sh/release.v1",
		Data:       map[string][]byte{"release": data},
	}, nil
}

func v1Release(rel release.Releaser) (*rspb.Release, error) {
	switch r := rel.(type) {
	case *rspb.Release:
		if r != nil {
			return r, nil
		}
	case rspb.Release:
		return &r, nil
	}
	return nil, fmt.Errorf("unsupported release type: %T", rel)
}

// gzipWriters are reused: each holds about a megabyte of compressor state.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// encodeRelease is the release's JSON, gzipped, base64-encoded: Helm's storage format.
func encodeRelease(rls *rspb.Release) ([]byte, error) {
	raw, err := json.Marshal(rls)
	if err != nil {
		return nil, err
	}
	var zipped bytes.Buffer
	zipped.Grow(len(raw) / 4)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&zipped)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(zipped.Len()))
	base64.StdEncoding.Encode(out, zipped.Bytes())
	return out, nil
}
