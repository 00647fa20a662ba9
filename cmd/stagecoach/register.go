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

package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// cliFieldManager owns what the command line applies: re-applying drops what it applied before
// and no longer asks for, and leaves what others set.
const cliFieldManager = "stagecoach-cli"

// registration names a managed cluster in the management cluster, as sveltosctl does.
type registration struct {
	kube               kubeFlags
	namespace, cluster string
}

// add adds the flags both register and unregister take. --kubeconfig is the managed cluster's,
// as with sveltosctl: the management cluster is read from KUBECONFIG or --management-kubeconfig.
func (r *registration) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.kube.kubeconfig, "management-kubeconfig", "", "kubeconfig of the management cluster (default: KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&r.kube.context, "context", "", "kubeconfig context of the management cluster (default: the current context)")
	cmd.Flags().StringVar(&r.namespace, "namespace", "", "namespace of the SveltosCluster (required)")
	cmd.Flags().StringVar(&r.cluster, "cluster", "", "name of the SveltosCluster (required)")
}

func (r *registration) check() error {
	if r.namespace == "" || r.cluster == "" {
		return fmt.Errorf("--namespace and --cluster are required: they name the SveltosCluster")
	}
	return nil
}

func (r *registration) secretName() string { return r.cluster + "-sveltos-kubeconfig" }

func newRegisterCommand() *cobra.Command {
	var (
		reg        registration
		kubeconfig string
		labelList  string
		member     bool
		waitReady  bool
		timeout    time.Duration
	)
	cluster := &cobra.Command{
		Use:   "cluster --namespace NS --cluster NAME --kubeconfig FILE [--labels k=v,...]",
		Short: "Register a managed cluster: its kubeconfig in a Secret, and a SveltosCluster with its labels",
		Long: `Register a managed cluster with the management cluster, with sveltosctl's flags: the kubeconfig
FILE is stored in Secret NS/NAME-sveltos-kubeconfig and SveltosCluster NS/NAME is created with the
labels. --member-cluster registers it as Kubefleet MemberCluster NAME too. Running it again updates
the credentials and the labels. A kubeconfig the controller would refuse (one that runs an exec
plugin, reads files, or skips TLS verification) is refused here, with the reason.`,
		Example: `  stagecoach register cluster --namespace prod --cluster eu-1 --kubeconfig eu-1.kubeconfig --labels env=prod,region=eu --wait`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := reg.check(); err != nil {
				return err
			}
			if kubeconfig == "" {
				return fmt.Errorf("--kubeconfig is required: the kubeconfig of the cluster to register")
			}
			set, err := labels.ConvertSelectorToLabelsMap(labelList)
			if err != nil {
				return fmt.Errorf("--labels %q: %v", labelList, err)
			}
			data, err := os.ReadFile(kubeconfig)
			if err != nil {
				return err
			}
			if _, err := fleet.RESTConfigFromKubeconfig(data); err != nil {
				return fmt.Errorf("refusing %s: %v", kubeconfig, err)
			}
			c, _, err := reg.kube.client()
			if err != nil {
				return err
			}
			if err := reg.apply(cmd.Context(), c, data, set, member); err != nil {
				return explain(err)
			}
			what := fmt.Sprintf("SveltosCluster %s/%s", reg.namespace, reg.cluster)
			if member {
				what += " and MemberCluster " + reg.cluster
			}
			fmt.Fprintf(cmd.OutOrStdout(), "registered %s, kubeconfig in Secret %s/%s\n", what, reg.namespace, reg.secretName())
			if !waitReady {
				return nil
			}
			if err := reg.waitReady(cmd.Context(), c, timeout); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "SveltosCluster %s/%s is ready\n", reg.namespace, reg.cluster)
			return nil
		},
	}
	reg.add(cluster)
	cluster.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to register (required)")
	cluster.Flags().StringVar(&labelList, "labels", "", "labels of the cluster, k=v,k2=v2")
	cluster.Flags().BoolVar(&member, "member-cluster", false, "also register it as a Kubefleet MemberCluster")
	cluster.Flags().BoolVar(&waitReady, "wait", false, "wait until the controller has reached the cluster")
	cluster.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "how long --wait waits")
	cmd := &cobra.Command{Use: "register", Short: "Register a managed cluster with the management cluster"}
	cmd.AddCommand(cluster)
	return cmd
}

// apply writes the Secret, the SveltosCluster and, with member, the MemberCluster.
func (r *registration) apply(ctx context.Context, c client.Client, kubeconfig []byte, set labels.Set, member bool) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		return err // without the right to create namespaces, the one named must exist
	}
	labelMap := map[string]any{}
	for k, v := range set {
		labelMap[k] = v
	}
	objs := []map[string]any{
		{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": r.secretName(), "namespace": r.namespace},
			"type": "Opaque", "data": map[string]any{clusterv1beta1.KubeconfigSecretKey: base64.StdEncoding.EncodeToString(kubeconfig)}},
		{"apiVersion": libv1beta1.GroupVersion.String(), "kind": "SveltosCluster",
			"metadata": map[string]any{"name": r.cluster, "namespace": r.namespace, "labels": labelMap},
			"spec":     map[string]any{"kubeconfigName": r.secretName(), "kubeconfigKeyName": clusterv1beta1.KubeconfigSecretKey}},
	}
	if member {
		objs = append(objs, map[string]any{"apiVersion": clusterv1beta1.GroupVersion.String(), "kind": "MemberCluster",
			"metadata": map[string]any{"name": r.cluster, "labels": labelMap,
				"annotations": map[string]any{clusterv1beta1.KubeconfigSecretAnnotation: r.namespace + "/" + r.secretName()}},
			"spec": map[string]any{"identity": map[string]any{"kind": "User", "name": cliFieldManager, "apiGroup": "rbac.authorization.k8s.io"}}})
	}
	for _, obj := range objs {
		u := &unstructured.Unstructured{Object: obj}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(cliFieldManager), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// waitReady waits until the controller reports the SveltosCluster ready, or says why it is not.
func (r *registration) waitReady(ctx context.Context, c client.Client, timeout time.Duration) error {
	cl := &libv1beta1.SveltosCluster{}
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.cluster}, cl); err != nil {
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
	return fmt.Errorf("SveltosCluster %s/%s is not ready after %s: %s", r.namespace, r.cluster, timeout, why)
}

func newUnregisterCommand() *cobra.Command {
	var reg registration
	cluster := &cobra.Command{
		Use:   "cluster --namespace NS --cluster NAME",
		Short: "Unregister a managed cluster: its SveltosCluster, its MemberCluster if it has one, and its kubeconfig Secret",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := reg.check(); err != nil {
				return err
			}
			c, _, err := reg.kube.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			sc := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: reg.namespace, Name: reg.cluster}}
			if err := c.Delete(ctx, sc); err != nil {
				return explain(view.NotFound(err, "SveltosCluster", reg.namespace, reg.cluster))
			}
			removed := fmt.Sprintf("SveltosCluster %s/%s", reg.namespace, reg.cluster)
			// The MemberCluster of the same name goes only if it reads this cluster's Secret.
			m := &clusterv1beta1.MemberCluster{}
			err = c.Get(ctx, client.ObjectKey{Name: reg.cluster}, m)
			if err == nil && m.Annotations[clusterv1beta1.KubeconfigSecretAnnotation] == reg.namespace+"/"+reg.secretName() {
				if err := c.Delete(ctx, m); client.IgnoreNotFound(err) != nil {
					return explain(err)
				}
				removed += ", MemberCluster " + reg.cluster
			} else if client.IgnoreNotFound(err) != nil {
				return explain(err)
			}
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: reg.namespace, Name: reg.secretName()}}
			if err := c.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
				return explain(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "unregistered %s and Secret %s/%s\n", removed, reg.namespace, reg.secretName())
			return nil
		},
	}
	reg.add(cluster)
	cmd := &cobra.Command{Use: "unregister", Short: "Unregister a managed cluster"}
	cmd.AddCommand(cluster)
	return cmd
}
