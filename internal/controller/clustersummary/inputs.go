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
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
)

// source is the content of a ConfigMap or Secret a profile refers to: its data, key by key.
type source struct {
	Kind, Namespace, Name string
	// Data is nil when an optional object does not exist.
	Data map[string][]byte
}

func (s source) String() string { return s.Kind + " " + s.Namespace + "/" + s.Name }

// sortedKeys gives a source's keys in a stable order, which is the order documents deploy in.
func (s source) sortedKeys() []string {
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readSource fetches a referenced ConfigMap or Secret from the management cluster. An empty
// namespace means the cluster's namespace. A Secret deployed by policyRefs must have the type
// reserved for profile content, so that no ordinary Secret is pushed to clusters by mistake.
//
// copies maps references onto the frozen copies to read instead (see package freeze); a copy
// that is gone reads as its original. Messages and hashes name the original either way.
func readSource(ctx context.Context, c client.Reader, kind, namespace, name string, optional, profileContent bool, clusterNamespace string,
	copies map[freeze.Ref]string) (source, error) {
	if namespace == "" {
		namespace = clusterNamespace
	}
	src := source{Kind: kind, Namespace: namespace, Name: name}
	key := client.ObjectKey{Namespace: namespace, Name: name}
	get := func(obj client.Object) error {
		if cp, ok := copies[freeze.Ref{Kind: kind, Namespace: namespace, Name: name}]; ok {
			err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: cp}, obj)
			if !apierrors.IsNotFound(err) {
				return err
			}
		}
		return c.Get(ctx, key, obj)
	}
	var err error
	switch kind {
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err = get(cm); err == nil {
			src.Data = map[string][]byte{}
			for k, v := range cm.Data {
				src.Data[k] = []byte(v)
			}
			for k, v := range cm.BinaryData {
				src.Data[k] = v
			}
		}
	case "Secret":
		secret := &corev1.Secret{}
		if err = get(secret); err == nil {
			if profileContent && secret.Type != libv1beta1.ClusterProfileSecretType {
				return src, permanent(fmt.Errorf("%s has type %q: Secrets deployed by a profile must have type %q",
					src, secret.Type, libv1beta1.ClusterProfileSecretType))
			}
			src.Data = secret.Data
			if src.Data == nil {
				src.Data = map[string][]byte{}
			}
		}
	default:
		return src, permanent(fmt.Errorf("%s: kind %q is not supported; use a ConfigMap or a Secret", src, kind))
	}
	if apierrors.IsNotFound(err) {
		if optional {
			return src, nil
		}
		// Not permanent: the user may well create it next.
		return src, fmt.Errorf("%s does not exist", src)
	}
	if err != nil {
		return src, fmt.Errorf("reading %s: %w", src, err)
	}
	return src, nil
}

// readPolicySources fetches every ConfigMap and Secret the profile's policyRefs name.
func readPolicySources(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) ([]source, error) {
	var out []source
	for _, ref := range cs.Spec.ClusterProfileSpec.PolicyRefs {
		if ref.RemoteURL != nil || (ref.Kind != "ConfigMap" && ref.Kind != "Secret") {
			return nil, permanent(fmt.Errorf("policyRef %s %s/%s: only ConfigMap and Secret references are supported",
				ref.Kind, ref.Namespace, ref.Name))
		}
		src, err := readSource(ctx, c, ref.Kind, ref.Namespace, ref.Name, ref.Optional, true, cs.Spec.ClusterNamespace, freeze.Decode(cs.Spec.FrozenContent))
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// hashOf digests a feature's configuration and the content it reads, so that a change to either
// shows as a new hash. Sveltos reports these hashes base64-encoded.
// withMetadata adds the profile's extraLabels and extraAnnotations to the parts of a feature's
// hash when there are any, so that the hash of a profile without them stays what it was.
func withMetadata(spec *configv1beta1.Spec, parts ...any) []any {
	if len(spec.ExtraLabels) == 0 && len(spec.ExtraAnnotations) == 0 {
		return parts
	}
	return append(parts, spec.ExtraLabels, spec.ExtraAnnotations)
}

func hashOf(parts ...any) []byte {
	h := sha256.New()
	for _, p := range parts {
		data, err := json.Marshal(p)
		if err != nil {
			// Every part is a plain API struct or map; marshalling cannot fail.
			panic(fmt.Sprintf("hashing %T: %v", p, err))
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}
