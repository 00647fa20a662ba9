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
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/dashboard"
)

func newDashboardCommand() *cobra.Command {
	var (
		kube          kubeFlags
		listen        string
		actions       bool
		authenticate  bool
		anonymousRead bool
	)
	cmd := &cobra.Command{
		Use:   "dashboard [--listen 127.0.0.1:8090]",
		Short: "Serve a live web dashboard of every rollout, read with your credentials",
		Long: `Serve the Stagecoach dashboard: every ClusterPromotion, ClusterProfile and update run with its state,
each rollout as a pipeline of stages with a tile per cluster, what a cluster runs, and a rollout's
Events. Pages update by themselves within a second of a change.

It reads the management cluster as kubectl finds it (--kubeconfig, KUBECONFIG, ~/.kube/config),
with that identity's permissions: what it may not list, the pages say they cannot show. With
--actions the pages also offer to approve a waiting stage, suspend, resume or roll back a
promotion, stop or resume an update run and roll its placement back to an earlier snapshot,
performed with the same identity.

It serves only on a loopback address unless --authenticate: then every viewer signs in with a
bearer token the API server accepts (TokenReview), sees what its own RBAC lets it list
(SubjectAccessReview) and acts as itself, while your identity only watches and asks.`,
		Example: `  stagecoach dashboard
  stagecoach dashboard --listen 127.0.0.1:9000 --actions
  stagecoach dashboard --listen :8090 --authenticate --actions`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, cfg, err := kube.client()
			if err != nil {
				return err
			}
			opts := dashboard.Options{Log: ctrl.Log.WithName("dashboard")}
			switch {
			case authenticate:
				opts.Auth = &dashboard.Auth{Reviewer: c, Config: cfg, AnonymousRead: anonymousRead}
				opts.Actions = actions
			case anonymousRead:
				return errors.New("--anonymous-read needs --authenticate")
			case actions:
				opts.Writer = c
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("dashboard: %w", err)
			}
			if !authenticate && !dashboard.Loopback(ln.Addr()) {
				_ = ln.Close()
				return fmt.Errorf("refusing to serve the dashboard at %s without --authenticate: anyone who reaches it would read "+
					"with your credentials; serve it on a loopback address such as 127.0.0.1, or add --authenticate", ln.Addr())
			}
			srv, err := dashboard.Standalone(cmd.Context(), cfg, opts)
			if err != nil {
				_ = ln.Close()
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Serving the Stagecoach dashboard of %s at http://%s (Ctrl-C stops it)\n", cfg.Host, ln.Addr())
			return dashboard.ServeListener(cmd.Context(), ln, srv, opts.Log)
		},
	}
	kube.add(cmd.Flags())
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8090", "address to serve the dashboard at (port 0: any free port)")
	cmd.Flags().BoolVar(&actions, "actions", false,
		"offer actions (approve, suspend, resume, stop, rollback) performed with your credentials, or with --authenticate the viewer's")
	cmd.Flags().BoolVar(&authenticate, "authenticate", false,
		"serve only viewers who sign in with a bearer token, each what its RBAC allows; needed to serve anywhere but on a loopback address")
	cmd.Flags().BoolVar(&anonymousRead, "anonymous-read", false, "with --authenticate, serve requests without a token as system:anonymous, read-only")
	return cmd
}
