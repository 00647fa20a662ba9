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

// Package registration records managed clusters in the management cluster as sveltosctl and a
// platform team's pipeline do: the cluster's kubeconfig in a Secret, a SveltosCluster naming that
// Secret and, for Kubefleet, a MemberCluster naming it too. The command line, the sandbox and
// the scale benchmark all register through it.
package registration

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// SecretName is the Secret, in the SveltosCluster's namespace, that holds the kubeconfig of the
// cluster name under the key clusterv1beta1.KubeconfigSecretKey (the SveltosCluster convention).
func SecretName(cluster string) string { return cluster + libv1beta1.KubeconfigSecretNameSuffix }

// Cluster is a managed cluster to register, and who registers it.
type Cluster struct {
	// Namespace holds the SveltosCluster and the kubeconfig Secret.
	Namespace, Name string
	// Labels go on the SveltosCluster and the MemberCluster: the stages select clusters by them.
	Labels map[string]string
	// Annotations go on the SveltosCluster and the MemberCluster (a shard key, say).
	Annotations map[string]string
	Kubeconfig  []byte
	// Member registers the cluster as Kubefleet MemberCluster Name too, its kubeconfig named by
	// the clusterv1beta1.KubeconfigSecretAnnotation annotation.
	Member bool

	// Manager owns what is applied: applying again as the same manager drops the labels and
	// annotations it applied before and no longer asks for, and leaves what others set.
	Manager string
	// Identity is the user the MemberCluster names as its spec.identity; Manager when empty.
	Identity string
	// MemberVersion is the version of cluster.kubernetes-fleet.io the MemberCluster is written in:
	// v1beta1 when empty, which CRDs of every Stagecoach release serve; the sandbox, which
	// installs its own CRDs, writes v1 as Kubefleet's docs do. The object is the same either way.
	MemberVersion string
	// CreateNamespace creates Namespace first. Without the right to create namespaces the one
	// named must exist already.
	CreateNamespace bool
}

// Register writes the cluster's kubeconfig Secret, its SveltosCluster and, with Member, its
// MemberCluster, by server-side apply: registering again updates the credentials, the labels
// and the annotations.
func Register(ctx context.Context, c client.Client, r Cluster) error {
	if r.CreateNamespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.Namespace}}
		if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
			return err
		}
	}
	secret := SecretName(r.Name)
	labels, annotations := map[string]any{}, map[string]any{}
	for k, v := range r.Labels {
		labels[k] = v
	}
	for k, v := range r.Annotations {
		annotations[k] = v
	}
	objs := []map[string]any{
		{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": secret, "namespace": r.Namespace},
			"type": string(corev1.SecretTypeOpaque), "data": map[string]any{clusterv1beta1.KubeconfigSecretKey: base64.StdEncoding.EncodeToString(r.Kubeconfig)}},
		{"apiVersion": libv1beta1.GroupVersion.String(), "kind": libv1beta1.SveltosClusterKind,
			"metadata": map[string]any{"name": r.Name, "namespace": r.Namespace, "labels": labels, "annotations": annotations},
			"spec":     map[string]any{"kubeconfigName": secret, "kubeconfigKeyName": clusterv1beta1.KubeconfigSecretKey}},
	}
	if r.Member {
		memberAnnotations := maps.Clone(annotations)
		memberAnnotations[clusterv1beta1.KubeconfigSecretAnnotation] = r.Namespace + "/" + secret
		identity := r.Identity
		if identity == "" {
			identity = r.Manager
		}
		version := cmp.Or(r.MemberVersion, clusterv1beta1.GroupVersion.Version)
		objs = append(objs, map[string]any{"apiVersion": clusterv1beta1.GroupVersion.Group + "/" + version, "kind": "MemberCluster",
			"metadata": map[string]any{"name": r.Name, "labels": labels, "annotations": memberAnnotations},
			"spec":     map[string]any{"identity": map[string]any{"kind": "User", "name": identity, "apiGroup": "rbac.authorization.k8s.io"}}})
	}
	for _, obj := range objs {
		u := &unstructured.Unstructured{Object: obj}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(r.Manager), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// WaitReady waits until the controller reports the SveltosCluster namespace/name ready, or says
// why it is not.
func WaitReady(ctx context.Context, c client.Reader, namespace, name string, timeout time.Duration) error {
	cl := &libv1beta1.SveltosCluster{}
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cl); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return cl.Status.Ready, nil
	})
	if err == nil {
		return nil
	}
	why := "the controller has not reported on it (is it running?)"
	if cl.Status.FailureMessage != nil {
		why = *cl.Status.FailureMessage
	}
	return fmt.Errorf("SveltosCluster %s/%s is not ready after %s: %s", namespace, name, timeout, why)
}

// Unregister deletes the SveltosCluster namespace/name, the MemberCluster of the same name if it
// reads that cluster's kubeconfig Secret, and the Secret, and says what it removed. A
// SveltosCluster that does not exist is the API server's NotFound error.
func Unregister(ctx context.Context, c client.Client, namespace, name string) (string, error) {
	secretName := SecretName(name)
	sc := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := c.Delete(ctx, sc); err != nil {
		return "", err
	}
	removed := fmt.Sprintf("SveltosCluster %s/%s", namespace, name)
	m := &clusterv1beta1.MemberCluster{}
	err := c.Get(ctx, client.ObjectKey{Name: name}, m)
	if err == nil && m.Annotations[clusterv1beta1.KubeconfigSecretAnnotation] == namespace+"/"+secretName {
		if err := c.Delete(ctx, m); client.IgnoreNotFound(err) != nil {
			return "", err
		}
		removed += ", MemberCluster " + name
	} else if client.IgnoreNotFound(err) != nil {
		return "", err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: secretName}}
	if err := c.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
		return "", err
	}
	return fmt.Sprintf("unregistered %s and Secret %s/%s", removed, namespace, secretName), nil
}
