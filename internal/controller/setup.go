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

// Package controller wires every Stagecoach reconciler into a controller manager.
package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller/binding"
	"github.com/stagecoach-dev/stagecoach/internal/controller/clusterprofile"
	"github.com/stagecoach-dev/stagecoach/internal/controller/clusterpromotion"
	"github.com/stagecoach-dev/stagecoach/internal/controller/clustersummary"
	"github.com/stagecoach-dev/stagecoach/internal/controller/eviction"
	"github.com/stagecoach-dev/stagecoach/internal/controller/inventory"
	"github.com/stagecoach-dev/stagecoach/internal/controller/membercluster"
	notifyctl "github.com/stagecoach-dev/stagecoach/internal/controller/notify"
	"github.com/stagecoach-dev/stagecoach/internal/controller/override"
	"github.com/stagecoach-dev/stagecoach/internal/controller/placement"
	"github.com/stagecoach-dev/stagecoach/internal/controller/sveltoscluster"
	"github.com/stagecoach-dev/stagecoach/internal/controller/updaterun"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/secretcache"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Options tune the controllers. The zero value gives the defaults.
type Options struct {
	// ProbeInterval is how often every managed cluster's API server is checked.
	ProbeInterval time.Duration
	// MaxProbeRate caps the probes per second of each cluster kind; see fleet.ProbeOptions.
	MaxProbeRate float64
	// DriftInterval is how often ContinuousWithDriftDetection profiles compare clusters with
	// what was deployed.
	DriftInterval time.Duration
	// MaxResyncRate caps the drift re-applies per second of each binding kind; zero means the
	// default (see binding.Options).
	MaxResyncRate float64
	// HealthInterval is how often health checks that do not pass yet, and those of promotion
	// stages (which keep running), are evaluated again.
	HealthInterval time.Duration
	// MaxRecheckRate caps the passing checks of promotion stages run again per second; zero
	// means the default (see clustersummary.Options).
	MaxRecheckRate float64
	// DeployConcurrency is how many managed clusters the ClusterSummary controller, and the
	// controller of each binding kind, deploy to at the same time; zero means their defaults.
	DeployConcurrency int
	// ChartSources bound where profiles' charts may come from.
	ChartSources ChartSources
	// ChartCacheDir holds downloaded charts; empty means a directory under the system's temp dir.
	ChartCacheDir string
	// LocalAsController lets profiles that name no ServiceAccount deploy deploymentType Local
	// content with the controller's identity (which then needs the rights to create it).
	LocalAsController bool
	// Shard is the shard of managed clusters this replica probes and deploys to (see package
	// shard). Only the default shard's replica also drives profiles, promotions, placements and
	// update runs, and reports their metrics.
	Shard shard.Key
	// ClusterInventory publishes a Cluster Inventory API ClusterProfile
	// (multicluster.x-k8s.io/v1alpha1) for every registered cluster; its CRD must be installed.
	ClusterInventory bool
	// InventoryNamespace holds the ClusterProfiles of MemberClusters; empty means
	// inventory.DefaultNamespace.
	InventoryNamespace string
	// Namespace is the controller's own namespace: the frozen copies and every other
	// ConfigMap or Secret it writes on the management cluster live there, so that it needs no
	// right to write Secrets anywhere else. Empty means DefaultNamespace.
	Namespace string
	// RecordApprovers copies the approver the API server stamped on a promotion (annotations
	// approved-by.stagecoach.dev/<stage>) into its history. Set it only where the chart's
	// MutatingAdmissionPolicy stamps them: without it, whoever may edit a promotion writes them.
	RecordApprovers bool
	// NotifyConfig is the Secret whose key endpoints.yaml lists where rollout notifications go
	// (see internal/notify); empty sends none. Their delivery record is a ConfigMap in
	// Namespace.
	NotifyConfig types.NamespacedName
	// Now is the clock of the rollout decisions (promotion soaks and windows, rolling updates,
	// update run waits); nil means time.Now. Tests move it on instead of waiting.
	Now func() time.Time
}

// DefaultNamespace is the namespace the chart's documentation installs into.
const DefaultNamespace = "stagecoach-system"

// Setup registers every reconciler with mgr. They share one cluster cache and one chart cache.
func Setup(mgr ctrl.Manager, opts Options) error {
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = 10 * time.Second
	}
	if opts.DriftInterval <= 0 {
		opts.DriftInterval = 30 * time.Second
	}
	if opts.HealthInterval <= 0 {
		opts.HealthInterval = 5 * time.Second
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	freeze.SetNamespace(opts.Namespace)
	log := ctrl.Log.WithName("controller")
	// Every reconciler reads Secrets through c, which holds only those read.
	c, err := secretcache.New(context.Background(), mgr)
	if err != nil {
		return err
	}
	clusters := fleet.NewCache(c, fleet.CacheOptions{UserAgent: opts.Shard.UserAgent(rest.DefaultKubernetesUserAgent()), Namespace: opts.Namespace})
	sources, err := sourcePolicies(context.Background(), mgr.GetAPIReader(), opts.ChartSources, log.WithName("charts"))
	if err != nil {
		return err
	}
	charts, err := helm.NewCache(helm.CacheOptions{Dir: opts.ChartCacheDir, Sources: sources, Log: log.WithName("charts")})
	if err != nil {
		return err
	}
	deployer, err := helm.NewDeployer(helm.Options{Cache: charts, Secrets: c, Log: log.WithName("helm")})
	if err != nil {
		return err
	}
	management, err := fleet.NewRemote(fleet.ClusterRef{Kind: "Management", Name: "management"}, mgr.GetConfig())
	if err != nil {
		return err
	}
	// One connection per tenant, shared by every controller that reads as tenants.
	tenants := tenancy.New(c, management)
	probe := fleet.ProbeOptions{ProbeInterval: opts.ProbeInterval, MaxProbeRate: opts.MaxProbeRate}
	// perCluster marks the controllers whose work is per managed cluster: every shard runs them.
	setups := []struct {
		name       string
		perCluster bool
		setup      func() error
	}{
		{"sveltoscluster", true, func() error {
			return sveltoscluster.NewReconciler(sveltoscluster.Options{Clusters: clusters, Shard: opts.Shard, Probe: probe}).SetupWithManager(mgr)
		}},
		{"membercluster", true, func() error {
			return membercluster.NewReconciler(membercluster.Options{Clusters: clusters, Shard: opts.Shard, Probe: probe}).SetupWithManager(mgr)
		}},
		{"clusterprofile", false, func() error {
			return clusterprofile.NewReconciler(clusterprofile.Options{Client: c, Tenants: tenants}).SetupWithManager(mgr)
		}},
		{"clusterpromotion", false, func() error {
			return clusterpromotion.NewReconciler(clusterpromotion.Options{Client: c, Now: opts.Now, Tenants: tenants, RecordApprovers: opts.RecordApprovers}).SetupWithManager(mgr)
		}},
		{"placement", false, func() error {
			return placement.NewReconciler(placement.Options{Now: opts.Now}).SetupWithManager(mgr)
		}},
		{"binding", true, func() error {
			return binding.NewReconciler(binding.Options{Client: c, Clusters: clusters, Shard: opts.Shard,
				// Zero means binding's defaults; a negative value is no setting here either.
				ResyncInterval: opts.DriftInterval, MaxResyncRate: max(opts.MaxResyncRate, 0),
				MaxConcurrentReconciles: max(opts.DeployConcurrency, 0)}).SetupWithManager(mgr)
		}},
		{"eviction", false, func() error {
			return eviction.NewReconciler(eviction.Options{Client: c}).SetupWithManager(mgr)
		}},
		{"inventory", false, func() error {
			if !opts.ClusterInventory {
				return nil
			}
			return inventory.NewReconciler(inventory.Options{Client: c, Namespace: opts.InventoryNamespace}).SetupWithManager(mgr)
		}},
		{"override", false, func() error {
			return override.NewReconciler(override.Options{Client: c}).SetupWithManager(mgr)
		}},
		{"notify", false, func() error {
			if opts.NotifyConfig.Name == "" {
				return nil
			}
			return notifyctl.NewReconciler(notifyctl.Options{Client: c, Config: opts.NotifyConfig, Now: opts.Now,
				Record: types.NamespacedName{Namespace: opts.Namespace, Name: notifyctl.DefaultRecordName}}).SetupWithManager(mgr)
		}},
		{"updaterun", false, func() error {
			return updaterun.NewReconciler(updaterun.Options{Client: c, Now: opts.Now}).SetupWithManager(mgr)
		}},
		{"clustersummary", true, func() error {
			return clustersummary.NewReconciler(clustersummary.Options{
				Client:                  c,
				Clusters:                clusters,
				Shard:                   opts.Shard,
				Helm:                    deployer,
				Management:              management,
				LocalAsController:       opts.LocalAsController,
				Tenants:                 tenants,
				DriftInterval:           opts.DriftInterval,
				HealthInterval:          opts.HealthInterval,
				MaxRecheckRate:          opts.MaxRecheckRate,
				NotReadyInterval:        opts.ProbeInterval,
				MaxConcurrentReconciles: opts.DeployConcurrency,
			}).SetupWithManager(mgr)
		}},
	}
	for _, s := range setups {
		if !s.perCluster && !opts.Shard.Default() {
			continue
		}
		if err := s.setup(); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", s.name, err)
		}
	}
	if !opts.Shard.Default() {
		return nil
	}
	return metrics.Register(&metrics.Collector{Reader: c, Log: log.WithName("metrics"), Now: opts.Now})
}
