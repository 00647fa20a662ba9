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
	"cmp"
	"context"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
)

// newPauseCommand takes a cluster out of every rollout: spec.paused of its SveltosCluster.
func newPauseCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "pause", Short: "Take a cluster out of rollouts: nothing is deployed to it and no stage waits for it"}
	cmd.AddCommand(clusterSwitch("cluster NAMESPACE/NAME", "Set spec.paused of a SveltosCluster", true))
	return cmd
}

func clusterSwitch(use, short string, pause bool) *cobra.Command {
	var kube kubeFlags
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1),
		Long: short + `. A paused cluster gets nothing new, keeps what it runs, and no
ClusterPromotion stage waits for it; stagecoach status lists it as Paused. Resumed, it catches
up: each stage it belongs to gives it the version that stage is on, and a stage not reached yet
nothing new. A cluster with spec.activeWindow is paused and resumed again at the window's next
boundary.`,
		Example: `  stagecoach pause cluster prod/eu-1
  stagecoach resume cluster prod/eu-1`,
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			namespace, name, err := operate.ClusterName(args[0])
			if err != nil {
				return "", err
			}
			return operate.PauseCluster(ctx, c, namespace, name, pause)
		}),
	}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, _, err := kube.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		var list libv1beta1.SveltosClusterList
		if err := c.List(cmp.Or(cmd.Context(), context.Background()), &list); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		var names []cobra.Completion
		for _, cl := range list.Items {
			names = append(names, cl.Namespace+"/"+cl.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	kube.add(cmd.Flags())
	return cmd
}
