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
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// cliFieldManager owns what the command line applies: re-applying drops what it applied before
// and no longer asks for, and leaves what others set.
const cliFieldManager = "stagecoach-cli"

// clusterFlags name a managed cluster in the management cluster, as sveltosctl's do.
type clusterFlags struct {
	kube               kubeFlags
	namespace, cluster string
}

// add adds the flags both register and unregister take. --kubeconfig is the managed cluster's,
// as with sveltosctl: the management cluster is read from KUBECONFIG or --management-kubeconfig.
func (r *clusterFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.kube.kubeconfig, "management-kubeconfig", "", "kubeconfig of the management cluster (default: KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&r.kube.context, "context", "", "kubeconfig context of the management cluster (default: the current context)")
	cmd.Flags().StringVar(&r.namespace, "namespace", "", "namespace of the SveltosCluster (required)")
	cmd.Flags().StringVar(&r.cluster, "cluster", "", "name of the SveltosCluster (required)")
}

func (r *clusterFlags) check() error {
	if r.namespace == "" || r.cluster == "" {
		return fmt.Errorf("--namespace and --cluster are required: they name the SveltosCluster")
	}
	return nil
}

func newRegisterCommand() *cobra.Command {
	var (
		reg        clusterFlags
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
			err = registration.Register(cmd.Context(), c, registration.Cluster{Namespace: reg.namespace, Name: reg.cluster,
				Labels: set, Kubeconfig: data, Member: member, Manager: cliFieldManager, CreateNamespace: true})
			if err != nil {
				return explain(err)
			}
			what := fmt.Sprintf("SveltosCluster %s/%s", reg.namespace, reg.cluster)
			if member {
				what += " and MemberCluster " + reg.cluster
			}
			fmt.Fprintf(cmd.OutOrStdout(), "registered %s, kubeconfig in Secret %s/%s\n", what, reg.namespace, registration.SecretName(reg.cluster))
			if !waitReady {
				return nil
			}
			if err := registration.WaitReady(cmd.Context(), c, reg.namespace, reg.cluster, timeout); err != nil {
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

func newUnregisterCommand() *cobra.Command {
	var reg clusterFlags
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
			msg, err := registration.Unregister(cmd.Context(), c, reg.namespace, reg.cluster)
			if err != nil {
				return explain(view.NotFound(err, "SveltosCluster", reg.namespace, reg.cluster))
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	reg.add(cluster)
	cmd := &cobra.Command{Use: "unregister", Short: "Unregister a managed cluster"}
	cmd.AddCommand(cluster)
	return cmd
}
