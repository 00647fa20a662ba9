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

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/operate"
)

// newRetryCommand tries failed rollouts again on the version they pinned.
func newRetryCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "retry", Short: "Try the failed clusters of a promotion's stage, or a failed update run, again on the same version"}
	cmd.AddCommand(newRetryPromotionCommand(), newRetryRunCommand())
	return cmd
}

func newRetryPromotionCommand() *cobra.Command {
	var (
		kube    kubeFlags
		cluster string
	)
	cmd := &cobra.Command{
		Use:   "promotion NAME [--cluster NAMESPACE/NAME]",
		Short: "Deploy the version a ClusterPromotion rolls out again to the failed clusters of the stage it is at",
		Long: `Clear the failed state (FailedNonRetriable included) of the clusters of the stage the
ClusterPromotion is at, or of the one --cluster names, so that they deploy the same version
again, within the stage's maxUpdate. A stage that failed (failure budget exceeded, progress
deadline passed) goes on, and its failure budget and deadline count the retry as a new attempt.
It sets the stagecoach.dev/retry annotation, which the controller acts on once.`,
		Example: `  stagecoach retry promotion kyverno
  stagecoach retry promotion kyverno --cluster prod/eu-1`,
		Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			return operate.RetryPromotion(ctx, c, args[0], cluster)
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(promotionList, nil)
	kube.add(cmd.Flags())
	cmd.Flags().StringVar(&cluster, "cluster", "", "retry only this cluster, NAMESPACE/NAME of its SveltosCluster")
	return cmd
}

func newRetryRunCommand() *cobra.Command {
	var (
		kube      kubeFlags
		namespace string
	)
	cmd := &cobra.Command{
		Use:   "run NAME [-n NAMESPACE]",
		Short: "Resume a failed ClusterStagedUpdateRun (or, with -n, a StagedUpdateRun) from its failed stage",
		Long: `Create a new update run that resumes the failed run from the first stage that did not succeed,
with the same resource snapshot, the same copy of the strategy and the same override snapshots;
the stages that succeeded are not run again. Kubefleet forbids changing a run's spec, so the
retry is a new run, marked stagecoach.dev/retry-of: NAME.`,
		Example: `  stagecoach retry run example-run
  stagecoach retry run web-run -n test-namespace`,
		Args: cobra.ExactArgs(1),
		RunE: kube.act(func(ctx context.Context, c client.Client, args []string) (string, error) {
			msg, _, err := operate.RetryRun(ctx, c, namespace, args[0])
			return msg, err
		}),
	}
	cmd.ValidArgsFunction = kube.completeNames(runList, &namespace)
	kube.add(cmd.Flags())
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace of a StagedUpdateRun; a ClusterStagedUpdateRun when left out")
	return cmd
}
