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
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/controller/binding"
	"github.com/stagecoach-dev/stagecoach/internal/controller/clustersummary"
	"github.com/stagecoach-dev/stagecoach/internal/controller/inventory"
	"github.com/stagecoach-dev/stagecoach/internal/controller/managercache"
	"github.com/stagecoach-dev/stagecoach/internal/dashboard"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

type controllerOptions struct {
	kubeconfig              string
	metricsAddr             string
	probeAddr               string
	pprofAddr               string
	dashboardAddr           string
	dashboardActions        bool
	dashboardActionsAs      string
	dashboardAnonymousRead  bool
	dashboardTLSCert        string
	dashboardTLSKey         string
	dashboardProxyCA        string
	dashboardProxyNames     []string
	leaderElect             bool
	leaderElectionNamespace string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	shardKey                string
	qps                     float32
	burst                   int
	controllers             controller.Options
}

func newControllerCommand() *cobra.Command {
	var opts controllerOptions
	cmd := &cobra.Command{
		Use:   "controller [--kubeconfig FILE]",
		Short: "Run the Stagecoach controller against a management cluster",
		Long: `Run the Stagecoach controller against a management cluster: the cluster named by --kubeconfig,
or else the in-cluster configuration or $KUBECONFIG.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runController(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.kubeconfig, "kubeconfig", "", "kubeconfig of the management cluster")
	f.StringVar(&opts.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 disables it")
	f.StringVar(&opts.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints; 0 disables them")
	f.StringVar(&opts.pprofAddr, "pprof-bind-address", "0", "address of the Go profiler's /debug/pprof endpoints; 0 disables them")
	f.StringVar(&opts.dashboardAddr, "dashboard-bind-address", "0", "address of the web dashboard (docs/dashboard.md); 0 disables it")
	f.BoolVar(&opts.dashboardActions, "dashboard-actions", false,
		"offer the dashboard's actions (approve, suspend, resume, stop, rollback), performed as the signed-in viewer: its RBAC decides")
	f.StringVar(&opts.dashboardActionsAs, "dashboard-actions-as", "", "deprecated: the same as --dashboard-actions; the user named is not used")
	_ = f.MarkDeprecated("dashboard-actions-as", "the dashboard's actions are now performed as the signed-in viewer; use --dashboard-actions")
	f.BoolVar(&opts.dashboardAnonymousRead, "dashboard-anonymous-read", false,
		"serve the dashboard to requests without a token as the user system:anonymous: what that user may list, by SubjectAccessReview, and no action")
	f.StringVar(&opts.dashboardTLSCert, "dashboard-tls-cert-file", "", "serve the dashboard over TLS with this certificate (PEM), read again when it changes")
	f.StringVar(&opts.dashboardTLSKey, "dashboard-tls-key-file", "", "the private key of --dashboard-tls-cert-file")
	f.StringVar(&opts.dashboardProxyCA, "dashboard-proxy-client-ca-file", "",
		"trust the X-Remote-User, X-Remote-Group and X-Remote-Extra-* headers of requests with a TLS client certificate of this CA (an authenticating proxy's); needs --dashboard-tls-cert-file, and the right to impersonate for actions")
	f.StringSliceVar(&opts.dashboardProxyNames, "dashboard-proxy-allowed-names", nil,
		"the common names the authenticating proxy's client certificate may have (empty: any the CA signed)")
	f.BoolVar(&opts.leaderElect, "leader-elect", false, "elect a leader so that only one replica reconciles at a time")
	f.StringVar(&opts.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: the pod's namespace)")
	f.DurationVar(&opts.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a standby replica waits, after the leader last renewed its Lease, before it takes over")
	f.DurationVar(&opts.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader keeps trying to renew its Lease before it steps down")
	f.DurationVar(&opts.retryPeriod, "leader-elect-retry-period", 2*time.Second, "how often replicas try to acquire or renew the Lease")
	f.StringVar(&opts.shardKey, "shard-key", "",
		"serve only the managed clusters whose annotation "+libv1beta1.ShardAnnotation+" has this value; empty serves the clusters without it and also drives profiles, promotions, placements and update runs. Each shard elects its own leader")
	f.Float32Var(&opts.qps, "kube-api-qps", 100, "requests per second the controller may make to the management cluster's API server")
	f.IntVar(&opts.burst, "kube-api-burst", 200, "requests the controller may make to the management cluster's API server in a burst above --kube-api-qps")
	f.IntVar(&opts.controllers.DeployConcurrency, "max-concurrent-deploys", 32,
		"how many managed clusters are deployed to at the same time (ClusterSummaries, and bindings of each kind)")
	f.DurationVar(&opts.controllers.ProbeInterval, "probe-interval", 10*time.Second, "how often each managed cluster's API server is checked")
	f.Float64Var(&opts.controllers.MaxProbeRate, "max-probe-rate", fleet.DefaultMaxProbeRate,
		"probes per second, at most, of SveltosClusters and of MemberClusters each: in a fleet too large to probe every --probe-interval at this rate, clusters that answer are probed less often")
	f.DurationVar(&opts.controllers.HealthInterval, "health-interval", 5*time.Second, "how often health checks that do not pass yet, and those of promotion stages, are evaluated again")
	f.Float64Var(&opts.controllers.MaxRecheckRate, "max-recheck-rate", clustersummary.DefaultMaxRecheckRate,
		"passing health checks of promotion stages run again per second, at most: in a fleet too large to check every --health-interval at this rate, healthy clusters are checked less often (checks that do not pass yet keep --health-interval); negative: no cap")
	f.DurationVar(&opts.controllers.DriftInterval, "drift-interval", 30*time.Second, "how often ContinuousWithDriftDetection profiles look for drift")
	f.Float64Var(&opts.controllers.MaxResyncRate, "max-resync-rate", binding.DefaultMaxResyncRate,
		"Kubefleet bindings applied again per second, at most, to revert drift (each binding kind): in a fleet too large to resync every --drift-interval at this rate, bindings are resynced less often")
	f.BoolVar(&opts.controllers.LocalAsController, "local-deployment-as-controller", false,
		"deploy the deploymentType Local content of profiles that name no ServiceAccount (labels projectsveltos.io/serviceaccount-name and -namespace) with the controller's own identity")
	f.BoolVar(&opts.controllers.ClusterInventory, "cluster-inventory", false,
		"publish a Cluster Inventory API ClusterProfile (multicluster.x-k8s.io/v1alpha1) for every SveltosCluster and MemberCluster; needs that CRD")
	f.StringVar(&opts.controllers.InventoryNamespace, "cluster-inventory-namespace", inventory.DefaultNamespace,
		"namespace of the ClusterProfiles of MemberClusters (those of SveltosClusters are in their own namespace); it must exist")
	f.StringVar(&opts.controllers.Namespace, "namespace", envOr("POD_NAMESPACE", controller.DefaultNamespace),
		"the controller's own namespace, where it keeps the frozen copies of what rollouts refer to; it must exist")
	f.BoolVar(&opts.controllers.RecordApprovers, "record-approvers", false,
		"show who approved a stage, from the annotations approved-by.stagecoach.dev/<stage>: set it only where the chart's MutatingAdmissionPolicy stamps them (the chart does), as anyone who may edit a promotion could write them otherwise")
	f.Var(namespacedName{&opts.controllers.NotifyConfig}, "notify-config",
		"NAMESPACE/NAME of a Secret whose key endpoints.yaml lists where rollout notifications are posted (docs/notifications.md); empty: none")
	cs := &opts.controllers.ChartSources
	f.StringSliceVar(&cs.TenantHosts, "tenant-chart-hosts", nil,
		"the only hosts tenants' profiles may fetch charts from (names, *.domain, IP addresses or CIDRs); empty: any host outside --tenant-refused-chart-networks")
	f.StringSliceVar(&cs.TenantRefusedNetworks, "tenant-refused-chart-networks", controller.DefaultTenantRefusedNetworks,
		"networks tenants' charts are never fetched from, whatever a host name resolves to: CIDRs, IP addresses, link-local, loopback, private, service-network")
	f.StringSliceVar(&cs.AdminHosts, "admin-chart-hosts", nil,
		"the only hosts platform admins' profiles may fetch charts from; empty: any host outside --admin-refused-chart-networks")
	f.StringSliceVar(&cs.AdminRefusedNetworks, "admin-refused-chart-networks", nil,
		"networks platform admins' charts are never fetched from (as --tenant-refused-chart-networks); empty: none")
	f.StringSliceVar(&cs.ServiceNetwork, "service-network", nil,
		"the management cluster's service network (CIDRs), for service-network; default: its ServiceCIDR objects, or else the kubernetes Service's address")
	f.StringVar(&opts.controllers.ChartCacheDir, "chart-cache-dir", "", "where downloaded Helm charts are kept (default: under the system temp dir)")
	return cmd
}

func runController(cmd *cobra.Command, opts controllerOptions) error {
	log := ctrl.Log.WithName("controller")
	// The garbage collector works harder as the heap nears 90% of the container's memory limit,
	// rather than letting it grow to twice what is live and the container be killed for it.
	// GOMEMLIMIT, when set, wins.
	if limit, err := memlimit.Set(); err != nil {
		log.Info("the memory limit could not be read: the heap is bounded by GOGC alone", "reason", err.Error())
	} else if limit < math.MaxInt64 {
		log.Info("heap bounded", "goMemLimitBytes", limit)
	}
	cfg, err := restConfig(opts.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = opts.qps, opts.burst
	metrics.CountManagedClustersAsOne(cfg.Host)
	opts.controllers.Shard = shard.Key(opts.shardKey)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Cache:                   managercache.Options(),
		Metrics:                 metricsserver.Options{BindAddress: opts.metricsAddr},
		HealthProbeBindAddress:  opts.probeAddr,
		PprofBindAddress:        opts.pprofAddr,
		LeaderElection:          opts.leaderElect,
		LeaderElectionID:        opts.controllers.Shard.LeaderElectionID("stagecoach.dev"),
		LeaderElectionNamespace: opts.leaderElectionNamespace,
		LeaseDuration:           &opts.leaseDuration,
		RenewDeadline:           &opts.renewDeadline,
		RetryPeriod:             &opts.retryPeriod,
		// Stepping down promptly on shutdown lets a standby replica take over without waiting out the lease.
		LeaderElectionReleaseOnCancel: true,
		// A controller's cache is synced once its event handlers have seen every object: tens of
		// thousands of clusters, bindings and summaries on a busy management cluster can take
		// longer than controller-runtime's two minutes, and a controller giving up stops the
		// whole process, which would only start over.
		Controller: config.Controller{CacheSyncTimeout: cacheSyncTimeout, SkipNameValidation: skipNameValidation},
	})
	if err != nil {
		return err
	}
	if err := controller.Setup(mgr, opts.controllers); err != nil {
		return err
	}
	if err := addDashboard(mgr, cfg, opts); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("caches", cachesSynced(mgr)); err != nil {
		return err
	}
	log.Info("starting", "host", cfg.Host, "leaderElection", opts.leaderElect, "shard", opts.controllers.Shard.String())
	return start(cmd.Context(), mgr)
}

// addDashboard serves the dashboard from the manager when --dashboard-bind-address asks for it.
// Every request carries a token the API server accepts (or, with --dashboard-anonymous-read, is
// served as system:anonymous); each viewer sees what its RBAC lets it list, and acts as itself.
func addDashboard(mgr ctrl.Manager, cfg *rest.Config, opts controllerOptions) error {
	if opts.dashboardAddr == "" || opts.dashboardAddr == "0" {
		return nil
	}
	reviewer, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return err
	}
	dopts := dashboard.Options{Log: ctrl.Log.WithName("dashboard"),
		Auth:    &dashboard.Auth{Reviewer: reviewer, Config: cfg, AnonymousRead: opts.dashboardAnonymousRead},
		Actions: opts.dashboardActions || opts.dashboardActionsAs != ""}
	if opts.dashboardTLSCert != "" || opts.dashboardTLSKey != "" {
		dopts.TLS = &dashboard.TLS{CertFile: opts.dashboardTLSCert, KeyFile: opts.dashboardTLSKey}
	}
	if opts.dashboardProxyCA != "" {
		if dopts.TLS == nil {
			return errors.New("--dashboard-proxy-client-ca-file needs --dashboard-tls-cert-file and --dashboard-tls-key-file: the proxy's client certificate is seen only over TLS")
		}
		if dopts.Auth.Proxy, err = dashboard.LoadProxy(opts.dashboardProxyCA, opts.dashboardProxyNames); err != nil {
			return err
		}
	}
	return mgr.Add(dashboard.Runnable(mgr, opts.dashboardAddr, dopts))
}

// shutdownTimeout bounds a stop: the manager's own graceful shutdown (30 s) and a little more.
var shutdownTimeout = 35 * time.Second

// cacheSyncTimeout is how long a controller waits for its cache before the process gives up.
const cacheSyncTimeout = 10 * time.Minute

// skipNameValidation, nil in the binary, lets tests run the command more than once in one process:
// controller-runtime refuses a controller whose name a controller of the process already has.
var skipNameValidation *bool

// start runs mgr until ctx is done. A manager stopped before its caches synced (a permission
// missing, an API server that does not answer) never returns from Start, as controller-runtime
// stands: the process then ends once the graceful shutdown had its time, instead of hanging.
func start(ctx context.Context, mgr ctrl.Manager) error {
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(shutdownTimeout):
		return fmt.Errorf("the manager did not stop within %s; it cannot when stopped before its caches synced: "+
			"check that the controller may list and watch what it reads", shutdownTimeout)
	}
}

// restConfig loads the management cluster's configuration from an explicit kubeconfig file, or
// from the usual places (in-cluster, $KUBECONFIG, ~/.kube/config) when none is given.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return ctrl.GetConfig()
	}
	return clientcmd.BuildConfigFromFlags("", kubeconfig)
}

// cachesSynced is ready once the manager's informers have synced, so that a rolling update of
// the controller does not route to a replica that has not read the management cluster yet.
func cachesSynced(mgr ctrl.Manager) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("the caches have not synced yet")
		}
		return nil
	}
}

// envOr is the environment variable's value, or def when it is unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// namespacedName is a NAMESPACE/NAME flag.
type namespacedName struct{ key *types.NamespacedName }

func (n namespacedName) String() string {
	if n.key == nil || n.key.Name == "" {
		return ""
	}
	return n.key.String()
}

func (n namespacedName) Set(v string) error {
	ns, name, ok := operate.SplitName(v)
	if !ok {
		return fmt.Errorf("%q is not NAMESPACE/NAME", v)
	}
	*n.key = types.NamespacedName{Namespace: ns, Name: name}
	return nil
}

func (namespacedName) Type() string { return "namespace/name" }
