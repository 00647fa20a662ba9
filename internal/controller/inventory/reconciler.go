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

// Package inventory publishes the Cluster Inventory API (multicluster.x-k8s.io/v1alpha1, SIG
// Multicluster's standard, which Kubefleet publishes too): one ClusterProfile per registered
// cluster, kept in step with the cluster's health, version and properties, and deleted with
// the cluster. A MemberCluster's profile lives in the inventory namespace (fleet-system by
// default, as in Kubefleet); a SveltosCluster's lives beside it, in the SveltosCluster's own
// namespace. Both bear the cluster's name.
package inventory

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	inventoryv1alpha1 "github.com/stagecoach-dev/stagecoach/api/inventory/v1alpha1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// DefaultNamespace holds the ClusterProfiles of MemberClusters unless Options say otherwise.
const DefaultNamespace = "fleet-system"

// reasonNotPublished is the Warning Event on a cluster whose profile cannot be written.
const reasonNotPublished = "ClusterProfileNotPublished"

// Options tune the Cluster Inventory controller.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// Namespace holds the ClusterProfiles of MemberClusters; empty means DefaultNamespace.
	Namespace string
}

// Reconciler publishes a ClusterProfile for every SveltosCluster and MemberCluster. Build it
// with NewReconciler; SetupWithManager registers one controller per kind of cluster.
type Reconciler struct {
	client    client.Client
	recorder  events.EventRecorder
	namespace string
	warnings  patch.Warnings
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return &Reconciler{client: opts.Client, namespace: ns}
}

// source is one kind of registered cluster, as the inventory sees it.
type source struct {
	kind    string
	new     func() client.Object
	observe func(client.Object) observed
	// profile is the key of the profile of the cluster named by a request, and request its
	// inverse.
	profile func(reconcile.Request) client.ObjectKey
	request func(client.Object) reconcile.Request
}

func (r *Reconciler) sources() []*source {
	return []*source{{
		kind:    "MemberCluster",
		new:     func() client.Object { return &clusterv1beta1.MemberCluster{} },
		observe: func(o client.Object) observed { return ofMemberCluster(o.(*clusterv1beta1.MemberCluster)) },
		profile: func(req reconcile.Request) client.ObjectKey {
			return client.ObjectKey{Namespace: r.namespace, Name: req.Name}
		},
		request: func(p client.Object) reconcile.Request {
			return reconcile.Request{NamespacedName: types.NamespacedName{Name: p.GetName()}}
		},
	}, {
		kind:    "SveltosCluster",
		new:     func() client.Object { return &libv1beta1.SveltosCluster{} },
		observe: func(o client.Object) observed { return ofSveltosCluster(o.(*libv1beta1.SveltosCluster)) },
		profile: func(req reconcile.Request) client.ObjectKey { return req.NamespacedName },
		request: func(p client.Object) reconcile.Request {
			return reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
		},
	}}
}

// SetupWithManager registers "inventory-membercluster" and "inventory-sveltoscluster" with mgr.
// It fails if the management cluster does not serve ClusterProfiles: the CRD is in the chart.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if _, err := mgr.GetRESTMapper().RESTMapping(inventoryv1alpha1.GroupVersion.WithKind("ClusterProfile").GroupKind(), inventoryv1alpha1.GroupVersion.Version); err != nil {
		return fmt.Errorf("the Cluster Inventory API is turned on but the management cluster does not serve %s ClusterProfiles "+
			"(install the chart's CRD multicluster.x-k8s.io_clusterprofiles.yaml, or turn --cluster-inventory off): %w", inventoryv1alpha1.GroupVersion, err)
	}
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/inventory-controller")
	for _, s := range r.sources() {
		ours := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[SourceLabel] == s.kind })
		err := ctrl.NewControllerManagedBy(mgr).
			For(s.new()).
			Watches(&inventoryv1alpha1.ClusterProfile{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, p client.Object) []reconcile.Request {
				return []reconcile.Request{s.request(p)}
			}), builder.WithPredicates(ours)).
			Named("inventory-" + map[string]string{"MemberCluster": "membercluster", "SveltosCluster": "sveltoscluster"}[s.kind]).
			Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
				return r.reconcile(ctx, s, req)
			}))
		if err != nil {
			return err
		}
	}
	return nil
}

// reconcile brings the profile of one cluster in line with it: created or updated while the
// cluster is registered, deleted once it is gone or going.
func (r *Reconciler) reconcile(ctx context.Context, s *source, req reconcile.Request) (result ctrl.Result, retErr error) {
	key := s.profile(req)
	cluster := s.new()
	err := r.client.Get(ctx, req.NamespacedName, cluster)
	if client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, err
	}
	p := &inventoryv1alpha1.ClusterProfile{}
	perr := r.client.Get(ctx, key, p)
	if client.IgnoreNotFound(perr) != nil {
		return ctrl.Result{}, perr
	}
	exists := perr == nil
	if apierrors.IsNotFound(err) || !cluster.GetDeletionTimestamp().IsZero() {
		if exists && p.Labels[SourceLabel] == s.kind && p.DeletionTimestamp.IsZero() {
			return ctrl.Result{}, client.IgnoreNotFound(r.client.Delete(ctx, p, client.Preconditions{UID: &p.UID}))
		}
		return ctrl.Result{}, nil
	}
	if exists && p.Labels[SourceLabel] != s.kind {
		owner := p.Spec.ClusterManager.Name
		if p.Labels[SourceLabel] != "" {
			owner = "Stagecoach, for the " + p.Labels[SourceLabel] + " of that name"
		}
		r.warn(cluster, fmt.Sprintf("ClusterProfile %s/%s exists and belongs to %s: this %s is not published", key.Namespace, key.Name, owner, s.kind))
		return ctrl.Result{}, nil
	}
	if !exists {
		p.Namespace, p.Name = key.Namespace, key.Name
		if err := r.shape(p, cluster, s.kind); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.client.Create(ctx, p); err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				r.warn(cluster, fmt.Sprintf("ClusterProfile %s/%s cannot be created: %v", key.Namespace, key.Name, err))
			}
			return ctrl.Result{}, err
		}
	} else {
		before := p.DeepCopy()
		if err := r.shape(p, cluster, s.kind); err != nil {
			return ctrl.Result{}, err
		}
		if !equality.Semantic.DeepEqual(before.ObjectMeta, p.ObjectMeta) || !equality.Semantic.DeepEqual(before.Spec, p.Spec) {
			if err := r.client.Update(ctx, p); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	r.warnings.Clear(cluster.GetUID(), reasonNotPublished)
	sw, err := patch.NewStatusWriter(r.client, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)
	setStatus(p, s.observe(cluster))
	return ctrl.Result{}, nil
}

// shape gives a profile the labels, spec and owner of the cluster's profile. The owner
// reference lets the garbage collector delete a profile whose cluster went while the controller
// was not running.
func (r *Reconciler) shape(p *inventoryv1alpha1.ClusterProfile, cluster client.Object, kind string) error {
	labels := p.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[inventoryv1alpha1.ClusterManagerLabel] = ClusterManager
	labels[SourceLabel] = kind
	p.SetLabels(labels)
	p.Spec.DisplayName = cluster.GetName()
	p.Spec.ClusterManager.Name = ClusterManager
	return controllerutil.SetOwnerReference(cluster, p, r.client.Scheme())
}

// setStatus writes what was observed into the profile's status, conditions keeping their
// transition times while their status holds.
func setStatus(p *inventoryv1alpha1.ClusterProfile, o observed) {
	keep := map[string]bool{}
	for _, c := range o.conditions {
		patch.SetCondition(&p.Status.Conditions, p.Generation, c.typ, c.status, c.reason, c.message)
		keep[c.typ] = true
	}
	conds := p.Status.Conditions[:0]
	for _, c := range p.Status.Conditions {
		if keep[c.Type] {
			conds = append(conds, c)
		}
	}
	p.Status.Conditions = conds
	p.Status.Version = inventoryv1alpha1.ClusterVersion{Kubernetes: o.version}
	p.Status.Properties = o.properties
}

// warn emits a Warning Event on the cluster, once per message.
func (r *Reconciler) warn(cluster client.Object, msg string) {
	if r.warnings.New(cluster.GetUID(), reasonNotPublished, msg) {
		r.recorder.Eventf(cluster, nil, corev1.EventTypeWarning, reasonNotPublished, "Publish", "%s", msg)
	}
}
