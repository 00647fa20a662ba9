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
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// historyFlags are the flags of every history command.
type historyFlags struct {
	kube      kubeFlags
	output    string
	namespace string
}

func newHistoryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Show the versions a rollout went through: their stages, outcomes and approvers, newest first",
	}
	describe := func(use, short, example string, list func(string) client.ObjectList, namespaceHelp string,
		load func(ctx context.Context, c client.Reader, name string, f *historyFlags) (*view.History, error)) *cobra.Command {
		var f historyFlags
		sub := &cobra.Command{
			Use: use, Short: short, Example: example, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, _, err := f.kube.client()
				if err != nil {
					return err
				}
				h, err := load(cmd.Context(), c, args[0], &f)
				if err != nil {
					return explain(err)
				}
				return writeHistory(cmd, f.output, h)
			},
		}
		sub.ValidArgsFunction = f.kube.completeNames(list, &f.namespace)
		f.kube.add(sub.Flags())
		sub.Flags().StringVarP(&f.output, "output", "o", "", "json or yaml; a list when left out")
		if namespaceHelp != "" {
			sub.Flags().StringVarP(&f.namespace, "namespace", "n", "", namespaceHelp)
		}
		return sub
	}
	cmd.AddCommand(
		describe("promotion NAME", "Show the versions a ClusterPromotion rolled out (status.history)",
			"  stagecoach history promotion kyverno\n  stagecoach history promotion kyverno -o json", promotionList, "",
			func(ctx context.Context, c client.Reader, name string, _ *historyFlags) (*view.History, error) {
				return view.PromotionHistory(ctx, c, name)
			}),
		describe("placement NAME", "Show the update runs of a ClusterResourcePlacement (or, with -n, a ResourcePlacement)",
			"  stagecoach history placement web\n  stagecoach history placement web -n test-namespace -o json", placementList,
			"namespace of a ResourcePlacement; a ClusterResourcePlacement when left out",
			func(ctx context.Context, c client.Reader, name string, f *historyFlags) (*view.History, error) {
				return view.PlacementHistory(ctx, c, f.namespace, name)
			}),
	)
	return cmd
}

// writeHistory prints a history as -o asks.
func writeHistory(cmd *cobra.Command, output string, h *view.History) error {
	w := cmd.OutOrStdout()
	switch output {
	case "":
		return view.WriteHistoryText(w, h)
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(h)
	case "yaml":
		data, err := yaml.Marshal(h)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	return fmt.Errorf("-o %q: want json or yaml, or leave it out for a list", output)
}

func placementList(namespace string) client.ObjectList {
	return view.RunFamily(namespace).NewPlacementList()
}
