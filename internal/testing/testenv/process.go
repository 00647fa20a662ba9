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

package testenv

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/stagecoach-dev/stagecoach/internal/controller/managercache"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// RunControllerProcess runs a manager set up by setup against the cluster of kubeconfig until
// SIGTERM or an interrupt, for a test binary run again as a controller of its own, that a test
// can kill. It logs to stderr with millisecond timestamps and serves no metrics or probes;
// tweaks adjust the manager's options (leader election, say).
func RunControllerProcess(kubeconfig string, setup func(ctrl.Manager) error, tweaks ...func(*ctrl.Options)) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	logger := zap.New(zap.UseDevMode(true), func(o *zap.Options) { o.TimeEncoder = zapcore.RFC3339NanoTimeEncoder })
	ctrl.SetLogger(logger)
	opts := ctrl.Options{
		Scheme:                 scheme.New(),
		Cache:                  managercache.Options(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 logger,
	}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return err
	}
	if err := setup(mgr); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return mgr.Start(ctx)
}
