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
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
)

// newSuspendCommand, newResumeCommand and newStopCommand hold and release rollouts:
// spec.suspend of a ClusterPromotion, spec.state of an update run.
func newSuspendCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "suspend", Short: "Suspend a ClusterPromotion: no stage starts, no timer fires, until it is resumed"}
	cmd.AddCommand(promotionSwitch("promotion NAME", "Set spec.suspend of a ClusterPromotion", true))
	return cmd
}

func newResumeCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "resume", Short: "Resume a suspended ClusterPromotion, a stopped update run or a paused cluster"}
	cmd.AddCommand(promotionSwitch("promotion NAME", "Clear spec.suspend of a ClusterPromotion", false),
		runSwitch("run NAME [-n NAMESPACE]", "Set spec.state of an update run to Run", placementv1beta1.StateRun),
		clusterSwitch("cluster NAMESPACE/NAME", "Clear spec.paused of a SveltosCluster", false))
	return cmd
}

func newStopCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "stop", Short: "Stop an update run: the clusters updating finish, no other starts, until it is resumed"}
	cmd.AddCommand(runSwitch("run NAME [-n NAMESPACE]", "Set spec.state of an update run to Stop", placementv1beta1.StateStop))
	return cmd
}

func promotionSwitch(use, short string, suspend bool) *cobra.Command {
	var kube kubeFlags
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			return operate.SuspendPromotion(ctx, c, args[0], suspend)
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(promotionList, nil)
	kube.add(cmd.Flags())
	return cmd
}

func runSwitch(use, short string, state placementv1beta1.State) *cobra.Command {
	var (
		kube      kubeFlags
		namespace string
	)
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			return operate.SetRunState(ctx, c, namespace, args[0], state)
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(runList, &namespace)
	kube.add(cmd.Flags())
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace of a StagedUpdateRun; a ClusterStagedUpdateRun when left out")
	return cmd
}

func newRollbackCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "rollback", Short: "Roll a promotion back to its last known good version, or a placement back to an earlier resource snapshot"}
	cmd.AddCommand(newRollbackPromotionCommand(), newRollbackPlacementCommand())
	return cmd
}

func newRollbackPromotionCommand() *cobra.Command {
	var kube kubeFlags
	cmd := &cobra.Command{
		Use:   "promotion NAME",
		Short: "Roll a ClusterPromotion's current version back to its last known good version",
		Long: `Ask the controller to roll the version the ClusterPromotion is rolling out back to
status.lastKnownGood, the last version that went through every stage, as onFailure: Rollback does
when a stage fails: the stages that received the version go back in reverse order, without soak
or approval, and the promotion then stops until a new version starts. It sets the
stagecoach.dev/rollback annotation to the version's hash.`,
		Example: `  stagecoach rollback promotion kyverno
  stagecoach status promotion kyverno --watch`,
		Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			return operate.RollbackPromotion(ctx, c, args[0])
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(promotionList, nil)
	kube.add(cmd.Flags())
	return cmd
}

func newRollbackPlacementCommand() *cobra.Command {
	var (
		kube      kubeFlags
		index     int
		strategy  string
		namespace string
	)
	cmd := &cobra.Command{
		Use:   "placement NAME --to-index N [--strategy STRATEGY] [-n NAMESPACE]",
		Short: "Start an update run that puts a placement back on an earlier resource snapshot",
		Long: `Create a ClusterStagedUpdateRun (with -n, a StagedUpdateRun of a ResourcePlacement) that rolls the
placement's clusters out to resource snapshot index N, stage by stage, with the strategy named or
else the strategy of the placement's latest run.`,
		Example: `  stagecoach rollback placement example-placement --to-index 0
  stagecoach rollback placement web -n test-namespace --to-index 3 --strategy fast`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("to-index") {
				return fmt.Errorf("--to-index is required: the resource snapshot index to go back to")
			}
			c, _, err := kube.client()
			if err != nil {
				return err
			}
			msg, _, err := operate.RollbackPlacement(cmd.Context(), c, namespace, args[0], index, strategy)
			if err != nil {
				return explain(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	kube.add(cmd.Flags())
	cmd.Flags().IntVar(&index, "to-index", 0, "the resource snapshot index to roll back to (required)")
	cmd.Flags().StringVar(&strategy, "strategy", "", "the staged update strategy (default: that of the placement's latest run)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace of a ResourcePlacement; a ClusterResourcePlacement when left out")
	return cmd
}
