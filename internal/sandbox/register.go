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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/config/crd"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
)

// FieldManager owns what the sandbox applies to its clusters, the registrations included.
const FieldManager = "stagecoach-sandbox"

// ControllerNamespace is the namespace a controller run on the sandbox keeps its own objects in
// (its --namespace default), made with the management cluster as the chart's release
// namespace would be.
const ControllerNamespace = "stagecoach-system"

// AdminUser is the user the sandbox's kubeconfigs authenticate as, and the identity its
// MemberClusters name.
const AdminUser = "sandbox-admin"

var (
	getOpts   = metav1.GetOptions{}
	applyOpts = metav1.ApplyOptions{FieldManager: FieldManager, Force: true}

	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// registerClusters installs the CRDs in the management cluster and registers every managed
// cluster, in the namespace named after it, as a SveltosCluster and a MemberCluster, both
// carrying the cluster's labels.
func (l layout) registerClusters(ctx context.Context, cfg *rest.Config, st *state) error {
	if err := InstallCRDs(ctx, cfg); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ControllerNamespace}}
	if err := client.IgnoreAlreadyExists(c.Create(ctx, ns)); err != nil {
		return fmt.Errorf("creating the namespace %s: %w", ControllerNamespace, err)
	}
	for _, cl := range st.Clusters {
		if !cl.Managed {
			continue
		}
		kubeconfig, err := os.ReadFile(l.kubeconfig(cl.Name))
		if err != nil {
			return err
		}
		if err := registration.Register(ctx, c, Registration(cl.Name, cl.Labels, kubeconfig)); err != nil {
			return fmt.Errorf("registering %s: %w", cl.Name, err)
		}
	}
	return nil
}

// Registration is how the sandbox registers managed cluster name: a SveltosCluster and a
// MemberCluster in the namespace named after it, with its labels and kubeconfig. Registering a
// cluster again with another kubeconfig (through a proxy, say) keeps every other field.
func Registration(name string, labels map[string]string, kubeconfig []byte) registration.Cluster {
	return registration.Cluster{Namespace: name, Name: name, Labels: labels, Kubeconfig: kubeconfig, Member: true,
		MemberVersion: "v1", Manager: FieldManager, Identity: AdminUser, CreateNamespace: true}
}

// InstallCRDs applies every Stagecoach CRD to the cluster and waits until each is established.
func InstallCRDs(ctx context.Context, cfg *rest.Config) error {
	files, err := fs.Glob(crd.Files, "*.yaml")
	if err != nil {
		return err
	}
	return installCRDs(ctx, cfg, crd.Files, files)
}

// installCRDs applies the CRDs in files, one a file, and waits until each is established.
func installCRDs(ctx context.Context, cfg *rest.Config, fsys fs.FS, files []string) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
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
