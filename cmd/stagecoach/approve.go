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

	"github.com/stagecoach-dev/stagecoach/internal/operate"
)

func newApproveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approve",
		Short: "Approve the stage a promotion or an update run waits at",
	}
	cmd.AddCommand(newApprovePromotionCommand(), newApproveRunCommand())
	return cmd
}

func newApprovePromotionCommand() *cobra.Command {
	var (
		kube  kubeFlags
		stage string
		ahead bool
	)
	cmd := &cobra.Command{
		Use:   "promotion NAME [--stage STAGE]",
		Short: "Set the manual approval of the stage a ClusterPromotion waits at",
		Long: `Set spec.stages[].trigger.manual.approved of the stage the ClusterPromotion is at, which lets it
move on to the next stage once the stage's other conditions hold. --stage names the stage; a
stage the promotion has not reached yet is approved only with --ahead.`,
		Example: `  stagecoach approve promotion kyverno
  stagecoach approve promotion kyverno --stage prod --ahead`,
		Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			return operate.ApprovePromotion(ctx, c, args[0], stage, ahead)
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(promotionList, nil)
	kube.add(cmd.Flags())
	cmd.Flags().StringVar(&stage, "stage", "", "the stage to approve (default: the stage the promotion is at)")
	cmd.Flags().BoolVar(&ahead, "ahead", false, "approve a stage the promotion has not reached yet")
	return cmd
}

func newApproveRunCommand() *cobra.Command {
	var (
		kube      kubeFlags
		stage     string
		namespace string
	)
	cmd := &cobra.Command{
		Use:   "run NAME --stage STAGE [-n NAMESPACE]",
		Short: "Approve the approval request a ClusterStagedUpdateRun (or, with -n, a StagedUpdateRun) waits on at a stage",
		Long: `Set the Approved condition of the approval request the run's stage waits on, as kubectl-fleet
approve does: the before-stage request while the stage has not started, else the after-stage one.`,
		Example: `  stagecoach approve run example-run --stage canary
  stagecoach approve run web-run --stage prod -n test-namespace`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if stage == "" {
				return fmt.Errorf("--stage is required: name the stage whose approval request to approve")
			}
			c, _, err := kube.client()
			if err != nil {
				return err
			}
			msg, err := operate.ApproveRun(cmd.Context(), c, namespace, args[0], stage, "stagecoach approve run")
			if err != nil {
				return explain(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	cmd.ValidArgsFunction = kube.completeNames(runList, &namespace)
	kube.add(cmd.Flags())
	cmd.Flags().StringVar(&stage, "stage", "", "the stage whose approval request to approve (required)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace of a StagedUpdateRun; a ClusterStagedUpdateRun when left out")
	return cmd
}
