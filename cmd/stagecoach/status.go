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
	"io"
	"os"
	"reflect"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// statusFlags are the flags of every status command.
type statusFlags struct {
	kube      kubeFlags
	output    string
	watch     bool
	interval  time.Duration
	clusters  int
	namespace string
}

func newStatusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a rollout as a tree: stages, their clusters, what each runs and what each stage waits for",
	}
	// namespaceHelp, when not empty, is the help of the -n flag of a kind with a namespaced twin.
	describe := func(use, short, example string, list func(string) client.ObjectList, namespaceHelp string,
		load func(ctx context.Context, c client.Reader, name string, f *statusFlags) (*view.Rollout, error)) *cobra.Command {
		var f statusFlags
		sub := &cobra.Command{
			Use: use, Short: short, Example: example, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return f.run(cmd, func(ctx context.Context, c client.Reader) (*view.Rollout, error) { return load(ctx, c, args[0], &f) })
			},
		}
		sub.ValidArgsFunction = f.kube.completeNames(list, &f.namespace)
		f.kube.add(sub.Flags())
		sub.Flags().StringVarP(&f.output, "output", "o", "", "json or yaml; a tree when left out")
		sub.Flags().BoolVarP(&f.watch, "watch", "w", false, "follow the rollout until it succeeds or fails")
		sub.Flags().DurationVar(&f.interval, "interval", 2*time.Second, "how often --watch looks again")
		sub.Flags().IntVar(&f.clusters, "clusters", 20, "clusters listed per stage at most, those that need attention first (0: all)")
		if namespaceHelp != "" {
			sub.Flags().StringVarP(&f.namespace, "namespace", "n", "", namespaceHelp)
		}
		return sub
	}
	cmd.AddCommand(
		describe("promotion NAME", "Show a ClusterPromotion's stages and clusters", "  stagecoach status promotion kyverno --watch", promotionList, "",
			func(ctx context.Context, c client.Reader, name string, f *statusFlags) (*view.Rollout, error) {
				return view.Promotion(ctx, c, name, view.Options{MaxClusters: f.clusters})
			}),
		describe("run NAME", "Show a ClusterStagedUpdateRun's (or, with -n, a StagedUpdateRun's) stages and clusters",
			"  stagecoach status run example-run\n  stagecoach status run web-run -n test-namespace -o json", runList, "namespace of a StagedUpdateRun; a ClusterStagedUpdateRun when left out",
			func(ctx context.Context, c client.Reader, name string, f *statusFlags) (*view.Rollout, error) {
				return view.Run(ctx, c, f.namespace, name, view.Options{MaxClusters: f.clusters})
			}),
		describe("profile NAME", "Show a ClusterProfile's (or, with -n, a Profile's) clusters",
			"  stagecoach status profile kyverno\n  stagecoach status profile kyverno -n eng", profileList, "namespace of a Profile; a ClusterProfile when left out",
			func(ctx context.Context, c client.Reader, name string, f *statusFlags) (*view.Rollout, error) {
				return view.Profile(ctx, c, f.namespace, name, view.Options{MaxClusters: f.clusters})
			}),
	)
	return cmd
}

// run prints the rollout once, or with --watch each time it changes until it is final.
func (f *statusFlags) run(cmd *cobra.Command, load func(context.Context, client.Reader) (*view.Rollout, error)) error {
	write, err := writer(f.output, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	c, _, err := f.kube.client()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	var last *view.Rollout
	for {
		r, err := load(ctx, c)
		if err != nil {
			return explain(err)
		}
		if !reflect.DeepEqual(r, last) {
			if last != nil && f.output == "" && isTerminal(cmd.OutOrStdout()) {
				fmt.Fprint(cmd.OutOrStdout(), "\x1b[H\x1b[2J") // redraw in place
			} else if last != nil && f.output == "" {
				fmt.Fprintln(cmd.OutOrStdout())
			}
			if err := write(r); err != nil {
				return err
			}
			last = r
		}
		if !f.watch || r.State.Final() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.interval):
		}
	}
}

// writer draws a rollout as -o asks: a tree (coloured on a terminal), JSON or YAML.
func writer(output string, w io.Writer) (func(*view.Rollout) error, error) {
	switch output {
	case "":
		opts := view.TextOptions{Color: isTerminal(w) && os.Getenv("NO_COLOR") == ""}
		return func(r *view.Rollout) error { return view.WriteText(w, r, opts) }, nil
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return func(r *view.Rollout) error { return e.Encode(r) }, nil
	case "yaml":
		return func(r *view.Rollout) error {
			data, err := yaml.Marshal(r)
			if err == nil {
				_, err = fmt.Fprintf(w, "---\n%s", data)
			}
			return err
		}, nil
	}
	return nil, fmt.Errorf("-o %q: want json or yaml, or leave it out for a tree", output)
}

// isTerminal says whether w is a terminal, where colour and redrawing make sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
