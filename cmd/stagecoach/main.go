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

// Command stagecoach is the Stagecoach controller and its operator tooling in one binary.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/stagecoach-dev/stagecoach/internal/logging"
)

// version is stamped at build time (-ldflags "-X main.version=v1.2.3"); the image builder does.
var version = "dev"

func main() {
	if err := newRootCommand().ExecuteContext(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	logOpts := zap.Options{Development: true}
	var logFormat string
	root := &cobra.Command{
		Use:   "stagecoach",
		Short: "Progressive, staged rollouts of add-ons and configuration across Kubernetes fleets",
		Long: `Stagecoach rolls Helm charts and manifests out across a fleet of Kubernetes clusters, stage by
stage and a few clusters at a time, gated by health checks, soak delays, time windows and approvals.
It serves the Sveltos ClusterPromotion/ClusterProfile and Kubefleet staged-update APIs.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			opts := []zap.Opts{zap.UseFlagOptions(&logOpts)}
			switch logFormat {
			case "console":
			case "json":
				opts = append(opts, zap.UseDevMode(false), zap.JSONEncoder())
			default:
				return fmt.Errorf("--log-format %q: want json or console", logFormat)
			}
			ctrl.SetLogger(logging.Lazy(zap.New(opts...)))
			return nil
		},
	}
	root.PersistentFlags().StringVar(&logFormat, "log-format", "console", "json (for log collectors) or console (for people)")
	goFlags := flag.NewFlagSet("log", flag.ExitOnError)
	logOpts.BindFlags(goFlags)
	root.PersistentFlags().AddGoFlagSet(goFlags)
	root.AddCommand(newControllerCommand(), newSandboxCommand(), newDemoCommand(), newPlanCommand(),
		newStatusCommand(), newGetCommand(), newApproveCommand(), newSuspendCommand(), newResumeCommand(), newStopCommand(),
		newPauseCommand(), newRollbackCommand(), newRegisterCommand(), newUnregisterCommand(), newDashboardCommand(),
		newVersionCommand(), newHistoryCommand(), newRetryCommand())
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		// Run by kubectl as a plugin: help and completion speak of "kubectl stagecoach".
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl stagecoach"}
	}
	return root
}
