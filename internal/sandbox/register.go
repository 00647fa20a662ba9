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

package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/config/crd"
)

const fieldManager = "stagecoach-sandbox"

var (
	getOpts   = metav1.GetOptions{}
	applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}

	crdGVR            = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	sveltosClusterGVR = schema.GroupVersionResource{Group: "lib.projectsveltos.io", Version: "v1beta1", Resource: "sveltosclusters"}
	memberClusterGVR  = schema.GroupVersionResource{Group: "cluster.kubernetes-fleet.io", Version: "v1beta1", Resource: "memberclusters"}
)

// KubeconfigSecretName is the Secret holding a managed cluster's kubeconfig, in the namespace
// named after the cluster, under the key KubeconfigSecretKey (the SveltosCluster convention).
func KubeconfigSecretName(cluster string) string { return cluster + "-sveltos-kubeconfig" }

// KubeconfigSecretKey is the key of the kubeconfig in KubeconfigSecretName.
const KubeconfigSecretKey = "kubeconfig"

// memberKubeconfigAnnotation tells Stagecoach where a MemberCluster's kubeconfig is (push mode).
const memberKubeconfigAnnotation = "stagecoach.dev/kubeconfig-secret"

// registerClusters installs the CRDs in the management cluster and registers every managed
// cluster as a SveltosCluster and a MemberCluster, both carrying the cluster's labels.
func (l layout) registerClusters(ctx context.Context, cfg *rest.Config, st *state) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := InstallCRDs(ctx, cfg); err != nil {
		return err
	}
	for _, c := range st.Clusters {
		if !c.Managed {
			continue
		}
		kubeconfig, err := os.ReadFile(l.kubeconfig(c.Name))
		if err != nil {
			return err
		}
		if err := registerCluster(ctx, cs, dyn, c, kubeconfig); err != nil {
			return fmt.Errorf("registering %s: %w", c.Name, err)
		}
	}
	return nil
}

func registerCluster(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, c clusterState, kubeconfig []byte) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.Name}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return Register(ctx, cs, dyn, Registration{Namespace: c.Name, Name: c.Name, Labels: c.Labels, Kubeconfig: kubeconfig})
}

// Registration is a managed cluster to register with the management cluster.
type Registration struct {
	// Namespace holds the SveltosCluster and the kubeconfig Secret; it must exist.
	Namespace, Name string
	Labels          map[string]string
	// Annotations go on the SveltosCluster and the MemberCluster (a shard key, say).
	Annotations map[string]string
	Kubeconfig  []byte
}

// Register records a managed cluster in the management cluster as a platform team's pipeline
// would: its kubeconfig in a Secret, a SveltosCluster and a MemberCluster naming that Secret,
// both with the cluster's labels.
func Register(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, r Registration) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: KubeconfigSecretName(r.Name), Namespace: r.Namespace},
		Data:       map[string][]byte{KubeconfigSecretKey: r.Kubeconfig},
	}
	if _, err := cs.CoreV1().Secrets(r.Namespace).Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = cs.CoreV1().Secrets(r.Namespace).Update(ctx, secret, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	labels, annotations := map[string]any{}, map[string]any{}
	for k, v := range r.Labels {
		labels[k] = v
	}
	for k, v := range r.Annotations {
		annotations[k] = v
	}
	sveltos := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "lib.projectsveltos.io/v1beta1",
		"kind":       "SveltosCluster",
		"metadata":   map[string]any{"name": r.Name, "namespace": r.Namespace, "labels": labels, "annotations": annotations},
		"spec":       map[string]any{"kubeconfigName": KubeconfigSecretName(r.Name), "kubeconfigKeyName": KubeconfigSecretKey},
	}}
	if _, err := dyn.Resource(sveltosClusterGVR).Namespace(r.Namespace).Apply(ctx, r.Name, sveltos, applyOpts); err != nil {
		return err
	}
	memberAnnotations := maps.Clone(annotations)
	memberAnnotations[memberKubeconfigAnnotation] = r.Namespace + "/" + KubeconfigSecretName(r.Name)
	member := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.kubernetes-fleet.io/v1beta1",
		"kind":       "MemberCluster",
		"metadata":   map[string]any{"name": r.Name, "labels": labels, "annotations": memberAnnotations},
		"spec": map[string]any{"identity": map[string]any{
			"kind": "User", "name": "sandbox-admin", "apiGroup": "rbac.authorization.k8s.io",
		}},
	}}
	_, err := dyn.Resource(memberClusterGVR).Apply(ctx, r.Name, member, applyOpts)
	return err
}

// InstallCRDs applies every Stagecoach CRD to the cluster and waits until each is established.
func InstallCRDs(ctx context.Context, cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	files, err := fs.Glob(crd.Files, "*.yaml")
	if err != nil {
		return err
	}
	var names []string
	for _, f := range files {
		data, err := crd.Files.ReadFile(f)
		if err != nil {
			return err
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if _, err := dyn.Resource(crdGVR).Apply(ctx, obj.GetName(), obj, applyOpts); err != nil {
			return fmt.Errorf("installing CRD %s: %w", obj.GetName(), err)
		}
		names = append(names, obj.GetName())
	}
	for _, name := range names {
		err := pollUntil(ctx, func(ctx context.Context) bool {
			obj, err := dyn.Resource(crdGVR).Get(ctx, name, getOpts)
			if err != nil {
				return false
			}
			conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true
				}
			}
			return false
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established: %w", name, err)
		}
	}
	return nil
}

func nodeName(cluster string) string { return cluster + "-node" }

// ensureNode registers the cluster's fake node; kwok takes it over and reports it Ready.
func ensureNode(ctx context.Context, cs kubernetes.Interface, cluster string) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("250"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: nodeName(cluster),
			Labels: map[string]string{
				"kubernetes.io/hostname": nodeName(cluster),
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
