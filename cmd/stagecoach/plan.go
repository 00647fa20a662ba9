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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/plan"
)

func newPlanCommand() *cobra.Command {
	var (
		kube    kubeFlags
		file    string
		output  string
		changes bool
		planner plan.Planner
	)
	cmd := &cobra.Command{
		Use:   "plan -f FILE [-o json|yaml]",
		Short: "Preview a rollout before applying it: its stages, waves and what each cluster would change",
		Long: `Preview what applying FILE would roll out, without applying anything: for each
ClusterPromotion, ClusterProfile, Profile, ClusterStagedUpdateRun or StagedUpdateRun in it, the clusters of
each stage in the waves the rollout would start them in (maxUpdate or maxConcurrency at a time),
and what each cluster would change, from a dry run against the cluster itself: objects created,
updated (field by field) or deleted, Helm releases installed or upgraded. Other documents in FILE
are skipped.

The management cluster is read as kubectl finds it; the managed clusters are reached with their
registered kubeconfigs, so the caller needs to read those Secrets (or pass --changes=false).`,
		Example: `  stagecoach plan -f promotion.yaml
  stagecoach plan -f run.yaml -o json | jq '.stages[].waves'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "" && output != "json" && output != "yaml" {
				return fmt.Errorf("-o %q: want json or yaml, or leave it out for text", output)
			}
			data, err := readInput(cmd.InOrStdin(), file)
			if err != nil {
				return err
			}
			objs, err := plan.Decode(data)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			c, _, err := kube.client()
			if err != nil {
				return err
			}
			planner.Client = c
			if changes {
				planner.Clusters = fleet.NewCache(c, fleet.CacheOptions{UserAgent: "stagecoach-plan/" + version})
				if planner.Helm, err = helm.NewDeployer(helm.Options{Secrets: c, Log: logr.Discard()}); err != nil {
					return err
				}
			}
			var plans []*plan.Plan
			for _, obj := range objs {
				what := obj.GetObjectKind().GroupVersionKind().Kind + " " + obj.GetName()
				applied, err := plan.Defaulted(cmd.Context(), c, obj)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				p, err := planner.Plan(cmd.Context(), applied)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				plans = append(plans, p)
			}
			return writePlans(cmd.OutOrStdout(), plans, output)
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "file to plan, as kubectl apply -f takes it (- for standard input)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml (default: text)")
	cmd.Flags().BoolVar(&changes, "changes", true, "dry-run each cluster to say what it would change")
	cmd.Flags().IntVar(&planner.Concurrency, "concurrency", 8, "clusters dry-run at once")
	cmd.Flags().DurationVar(&planner.Timeout, "timeout", 30*time.Second, "bound on each cluster's dry run")
	kube.add(cmd.Flags())
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

// readInput reads file, or standard input for "-".
func readInput(stdin io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(file)
}

// writePlans prints the plans as text, or in JSON or YAML: one plan as an object, several as a
// list.
func writePlans(w io.Writer, plans []*plan.Plan, output string) error {
	if output == "" {
		return plan.WriteText(w, plans)
	}
	var v any = plans
	if len(plans) == 1 {
		v = plans[0]
	}
	var data []byte
	var err error
	if output == "json" {
		data, err = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(v)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
