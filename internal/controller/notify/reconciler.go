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

// Package notify runs the notifications of rollouts: a controller per rollout kind
// (ClusterPromotion and both kinds of staged update runs) derives from each object's status the
// events due (internal/notify) and hands them to the Notifier, which delivers them in the
// background. It only reads rollouts: no reconciler waits on it, and it writes no status.
package notify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	notify "github.com/stagecoach-dev/stagecoach/internal/notify"
)

// DefaultRecordName names the ConfigMap of the delivery record.
const DefaultRecordName = "stagecoach-notifications"

// Options configure the notifications.
type Options struct {
	// Client reads the rollouts and the configuration Secret (a secretcache client).
	Client client.Client
	// Config is the Secret whose key endpoints.yaml lists the endpoints.
	Config types.NamespacedName
	// Record is the ConfigMap that keeps the events delivered; empty means DefaultRecordName
	// in Config's namespace.
	Record types.NamespacedName
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Backoff is the first retry's wait; zero means 1 s.
	Backoff time.Duration
}

// Reconciler derives and offers the events of every rollout kind.
type Reconciler struct {
	opts     Options
	notifier *notify.Notifier
	recorder events.EventRecorder
	log      logr.Logger

	mu      sync.Mutex
	version string // the Secret's UID and resourceVersion last read, or the error last told
}

// NewReconciler makes the reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Record.Name == "" {
		opts.Record = types.NamespacedName{Namespace: opts.Config.Namespace, Name: DefaultRecordName}
	}
	return &Reconciler{opts: opts}
}

// Notifier is the notifier the reconciler feeds (for tests).
func (r *Reconciler) Notifier() *notify.Notifier { return r.notifier }

// SetupWithManager registers a controller per rollout kind and the notifier's workers, which
// run on the leader only. Every rollout is looked at again when the Secret changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.opts.Client == nil {
		r.opts.Client = mgr.GetClient()
	}
	r.log = mgr.GetLogger().WithName("notify")
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/notify")
	r.notifier = &notify.Notifier{Record: &notify.Record{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Key: r.opts.Record},
		Events: r.recorder, Log: r.log, Now: r.opts.Now, Backoff: r.opts.Backoff}
	if err := mgr.Add(r.notifier); err != nil {
		return err
	}
	// The configuration is read at start, and told about if wrong, whether or not any rollout
	// exists yet.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		r.loadConfig(ctx)
		return nil
	})); err != nil {
		return err
	}
	isConfig := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == r.opts.Config.Namespace && o.GetName() == r.opts.Config.Name
	})
	kinds := map[string]client.Object{"clusterpromotion": &configv1beta1.ClusterPromotion{}}
	lists := map[string]func() client.ObjectList{"clusterpromotion": func() client.ObjectList { return &configv1beta1.ClusterPromotionList{} }}
	for _, f := range placementv1beta1.Families() {
		name := strings.ToLower(f.UpdateRunKind())
		kinds[name], lists[name] = f.NewUpdateRun(), func() client.ObjectList { return f.NewUpdateRunList() }
	}
	for name, obj := range kinds {
		list := lists[name]
		err := ctrl.NewControllerManagedBy(mgr).
			For(obj).
			WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
				r.loadConfig(ctx)
				return r.all(ctx, list())
			}), builder.WithPredicates(isConfig)).
			Named("notify-" + name).
			Complete(&kindReconciler{r: r, newObj: func() client.Object { return obj.DeepCopyObject().(client.Object) }})
		if err != nil {
			return err
		}
	}
	return nil
}

// all lists every object of a kind, for a change of the Secret.
func (r *Reconciler) all(ctx context.Context, list client.ObjectList) []reconcile.Request {
	if err := r.opts.Client.List(ctx, list); err != nil {
		r.log.Error(err, "listing rollouts after a change of the notification endpoints")
		return nil
	}
	var out []reconcile.Request
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		if co, ok := o.(client.Object); ok {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(co)})
		}
		return nil
	})
	return out
}

// loadConfig reads the Secret, and tells once, by log, metric and an Event on the Secret, why
// it cannot be used. Without a usable configuration no event is sent; rollouts go on.
func (r *Reconciler) loadConfig(ctx context.Context) *notify.Config {
	secret := &corev1.Secret{}
	err := r.opts.Client.Get(ctx, r.opts.Config, secret)
	version := ""
	var cfg *notify.Config
	switch {
	case apierrors.IsNotFound(err):
		err = fmt.Errorf("the notification endpoints' Secret %s does not exist: no notification is sent", r.opts.Config)
	case err != nil:
		err = fmt.Errorf("the notification endpoints' Secret %s cannot be read: %w", r.opts.Config, err)
	default:
		version = string(secret.UID) + "/" + secret.ResourceVersion
		cfg, err = notify.Parse(secret.Data[notify.ConfigKey])
		if err != nil {
			err = fmt.Errorf("the notification endpoints in Secret %s are refused, no notification is sent: %w", r.opts.Config, err)
		}
	}
	if err != nil {
		version = "error: " + version + err.Error()
	}
	r.mu.Lock()
	changed := version != r.version
	r.version = version
	r.mu.Unlock()
	if !changed {
		return r.notifier.Config()
	}
	ref := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.opts.Config.Namespace, Name: r.opts.Config.Name, UID: secret.UID}}
	metrics.NotifyConfigValid(err == nil)
	if err != nil {
		r.log.Info(err.Error())
		r.recorder.Eventf(ref, nil, corev1.EventTypeWarning, "NotifyConfigRefused", "Notify", "%s", err.Error())
		r.notifier.SetConfig(nil, ref)
		return nil
	}
	r.log.Info("notification endpoints read", "endpoints", len(cfg.Endpoints))
	r.notifier.SetConfig(cfg, ref)
	return cfg
}

// kindReconciler handles one rollout kind.
type kindReconciler struct {
	r      *Reconciler
	newObj func() client.Object
}

// Reconcile derives the events due for one rollout and offers them; it looks again when
// stage.blocked may become due.
func (k *kindReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cfg := k.r.loadConfig(ctx)
	if cfg == nil {
		return reconcile.Result{}, nil
	}
	obj := k.newObj()
	if err := k.r.opts.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var evs []notify.Event
	var recheck time.Duration
	switch o := obj.(type) {
	case *configv1beta1.ClusterPromotion:
		evs, recheck = notify.ForPromotion(o, k.r.opts.Now(), cfg.BlockedAfter.Duration)
	case placementv1beta1.UpdateRunObj:
		evs, recheck = notify.ForUpdateRun(o, k.r.opts.Now(), cfg.BlockedAfter.Duration)
	}
	if err := k.r.notifier.Offer(ctx, evs); err != nil {
		return reconcile.Result{}, err
	}
	if recheck > 0 {
		return reconcile.Result{RequeueAfter: recheck + time.Second}, nil
	}
	return reconcile.Result{}, nil
}
