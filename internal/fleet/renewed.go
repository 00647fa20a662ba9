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

package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A SveltosCluster's renewed token (spec.tokenRequestRenewalOption) is written into a copy of its
// kubeconfig in the controller's own namespace, not into the cluster's kubeconfig Secret, so
// that the controller writes Secrets in its namespace only. The copy records the digest of the
// kubeconfig it was made from: it is used while that kubeconfig is unchanged, and an edit to the
// cluster's own Secret (a new server, a new token) wins at once.
const (
	// RenewedFromAnnotation is the digest (KubeconfigDigest) of the kubeconfig a renewed copy was
	// made from.
	RenewedFromAnnotation = "stagecoach.dev/renewed-from"
	// RenewedForAnnotation names the cluster a renewed copy is for: "SveltosCluster namespace/name".
	RenewedForAnnotation = "stagecoach.dev/renewed-for"
	// RenewedKey holds the renewed kubeconfig.
	RenewedKey = "kubeconfig"
)

// RenewedKubeconfig is where the renewed kubeconfig of the cluster is kept, in namespace (the
// controller's): "<cluster namespace>.<name>-renewed-kubeconfig", unique as a namespace has no
// dot; a hash of both where that would be too long.
func RenewedKubeconfig(namespace string, ref ClusterRef) KubeconfigSecret {
	name := ref.Namespace + "." + ref.Name + "-renewed-kubeconfig"
	if len(name) > 253 {
		sum := sha256.Sum256([]byte(ref.Namespace + "/" + ref.Name))
		name = "renewed-kubeconfig-" + hex.EncodeToString(sum[:16])
	}
	return KubeconfigSecret{Namespace: namespace, Name: name, Key: RenewedKey}
}

// KubeconfigDigest identifies a kubeconfig without quoting it.
func KubeconfigDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// preferRenewed returns the renewed copy of a SveltosCluster's kubeconfig when there is one in
// namespace, made from the kubeconfig read from the cluster's Secret (data); that Secret
// otherwise.
func preferRenewed(ctx context.Context, reader client.Reader, namespace string, ref ClusterRef,
	secret *corev1.Secret, data []byte, loc KubeconfigSecret) (*corev1.Secret, []byte, KubeconfigSecret, error) {
	if namespace == "" || ref.Kind != KindSveltosCluster {
		return secret, data, loc, nil
	}
	rloc := RenewedKubeconfig(namespace, ref)
	renewed := &corev1.Secret{}
	err := reader.Get(ctx, types.NamespacedName{Namespace: rloc.Namespace, Name: rloc.Name}, renewed)
	if apierrors.IsNotFound(err) {
		return secret, data, loc, nil
	}
	if err != nil {
		return nil, nil, loc, fmt.Errorf("reading the renewed kubeconfig Secret %s: %w", rloc, err)
	}
	if renewed.Annotations[RenewedFromAnnotation] != KubeconfigDigest(data) || len(renewed.Data[RenewedKey]) == 0 {
		return secret, data, loc, nil
	}
	return renewed, renewed.Data[RenewedKey], rloc, nil
}

// Namespace is the controller's namespace the Cache reads renewed kubeconfigs from.
func (c *Cache) Namespace() string { return c.opts.Namespace }
