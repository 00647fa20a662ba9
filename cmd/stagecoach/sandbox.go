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
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

func newSandboxCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a local fleet of real Kubernetes clusters (no containers needed)",
	}
	cmd.AddCommand(newSandboxUpCommand(), newSandboxDownCommand(), newSandboxChartsCommand())
	return cmd
}

func newSandboxUpCommand() *cobra.Command {
	var (
		opts       sandbox.Options
		clusters   []string
		foreground bool
	)
	cmd := &cobra.Command{
		Use:   "up --dir DIR [--cluster NAME[:key=value,...]]...",
		Short: "Start a management cluster and managed clusters, and register them",
		Long: `Start a management cluster and the named managed clusters as local processes (etcd,
kube-apiserver, kube-controller-manager, kube-scheduler and kwok), write DIR/mgmt.kubeconfig and
DIR/<NAME>.kubeconfig, install the Stagecoach CRDs and register every managed cluster as a
SveltosCluster (namespace NAME, name NAME, kubeconfig Secret NAME-sveltos-kubeconfig) and a
MemberCluster, both with the given labels. Without --cluster it makes dev, staging and prod,
labelled env=<name>. It returns once every cluster is ready and leaves them running.

Run it again on the same DIR after a crash or reboot to restart what stopped.`,
		Example: `  stagecoach sandbox up --dir /tmp/fleet --cluster a:env=dev --cluster b:env=prod
  kubectl --kubeconfig /tmp/fleet/a.kubeconfig get nodes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Log = ctrl.Log.WithName("sandbox")
			if len(clusters) == 0 {
				opts.Clusters = sandbox.DefaultClusters()
			}
			for _, c := range clusters {
				spec, err := sandbox.ParseClusterSpec(c)
				if err != nil {
					return err
				}
				opts.Clusters = append(opts.Clusters, spec)
			}
			fleet, err := sandbox.Up(cmd.Context(), opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "management cluster: kubectl --kubeconfig %s get sveltosclusters -A\n", fleet.Management.Kubeconfig)
			for _, c := range fleet.Managed {
				fmt.Fprintf(out, "%-18s kubectl --kubeconfig %s get nodes\n", c.Name+":", c.Kubeconfig)
			}
			if !foreground {
				fmt.Fprintf(out, "stop it with: stagecoach sandbox down --dir %s\n", opts.Dir)
				return nil
			}
			fmt.Fprintln(out, "running in the foreground; Ctrl-C stops the sandbox")
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			<-sig
			return sandbox.Down(opts.Dir)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory for the sandbox's kubeconfigs, certificates, data and logs")
	cmd.Flags().StringArrayVar(&clusters, "cluster", nil, "managed cluster NAME[:key=value,...] (repeatable)")
	cmd.Flags().BoolVar(&foreground, "foreground", false, "stay attached and stop the sandbox on Ctrl-C")
	cmd.Flags().StringVar(&opts.KubeBinDir, "kube-bin", "", "directory of the Kubernetes components (default: found from `make kube`)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Minute, "how long to wait for the clusters to be ready")
	cmd.Flags().BoolVar(&opts.SourceController, "source-controller", false, "also run Flux's source-controller against the management cluster, with the Flux source CRDs (built by `make flux`)")
	cmd.Flags().StringVar(&opts.FluxBinDir, "flux-bin", "", "directory of source-controller and its CRDs (default: found from `make flux`)")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

func newSandboxDownCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "down --dir DIR",
		Short: "Stop every process of the sandbox in DIR and remove its state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := sandbox.Down(dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sandbox in %s stopped and removed\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory of the sandbox")
	_ = cmd.MarkFlagRequired("dir")
	return cmd
}

func newSandboxChartsCommand() *cobra.Command {
	var dir, addr string
	cmd := &cobra.Command{
		Use:   "charts --charts DIR",
		Short: "Serve the charts under DIR as a Helm chart repository on loopback until interrupted",
		Long: `Package every chart found under DIR (a versions.yaml next to a Chart.yaml builds several
versions from one source) and serve them as a Helm chart repository on 127.0.0.1, printing its URL.
Profiles in a sandbox fleet can then use repositoryURL: <URL>.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, stop, err := chartrepo.ServeOn(cmd.Context(), dir, addr)
			if err != nil {
				return err
			}
			defer stop()
			fmt.Fprintln(cmd.OutOrStdout(), url)
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "charts", "testdata/charts", "directory of chart sources")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	return cmd
}
