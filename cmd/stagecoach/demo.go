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
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/stagecoach-dev/stagecoach/internal/demo"
)

func newDemoCommand() *cobra.Command {
	opts := demo.Options{In: os.Stdin}
	cmd := &cobra.Command{
		Use:   "demo --dir DIR",
		Short: "Run a guided progressive rollout on a local sandbox fleet",
		Long: `Start a sandbox fleet (dev, staging, prod) in DIR, serve the sample webapp chart, run the
Stagecoach controller, and roll webapp out with a ClusterPromotion: dev after a soak delay,
staging, then prod once approved, each cluster checked by a Lua health check. Then upgrade it
stage by stage. Progress is shown live. The fleet keeps running afterwards; remove it with
stagecoach sandbox down --dir DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			opts.Executable = exe
			if opts.Dir, err = filepath.Abs(opts.Dir); err != nil {
				return err
			}
			opts.Out = cmd.OutOrStdout()
			opts.Terminal = !opts.Unattended && term.IsTerminal(int(os.Stdout.Fd()))
			if opts.Terminal {
				opts.Width, _, _ = term.GetSize(int(os.Stdout.Fd()))
			}
			// The demo tells the story itself; the sandbox's own progress lines would only interleave.
			opts.Log = logr.Discard()
			if err := demo.Run(cmd.Context(), opts); err != nil {
				return fmt.Errorf("%w\nthe fleet is left as it is; remove it with: stagecoach sandbox down --dir %s", err, opts.Dir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "dir", "", "directory of the sandbox fleet")
	f.StringVar(&opts.Charts, "charts", "testdata/charts", "directory of the chart sources to serve")
	f.StringVar(&opts.KubeBinDir, "kube-bin", "", "directory of the Kubernetes components (default: found from `make kube`)")
	f.BoolVar(&opts.Unattended, "unattended", false, "approve without asking and print progress line by line (for scripts and CI)")
	f.DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "how long each rollout may take")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}
