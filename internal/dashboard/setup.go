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

package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// syncTimeout bounds the first read of the management cluster.
const syncTimeout = 2 * time.Minute

// Standalone watches the management cluster of cfg with a cache of its own, with the identity
// of cfg, and serves the dashboard from it until ctx is done.
func Standalone(ctx context.Context, cfg *rest.Config, opts Options) (*Server, error) {
	s := scheme.New()
	checker, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("connecting to the management cluster %s: %w", cfg.Host, err)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: s, Mapper: checker.RESTMapper(), ReaderFailOnMissingInformer: true,
		DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return nil, err
	}
	src, err := NewSource(ctx, c, checker)
	if err != nil {
		return nil, err
	}
	go func() {
		if err := c.Start(ctx); err != nil {
			opts.Log.Error(err, "the dashboard's cache stopped")
		}
	}()
	syncCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	if !c.WaitForCacheSync(syncCtx) {
		return nil, errors.New("the dashboard could not read the management cluster within " + syncTimeout.String())
	}
	return New(src, opts)
}

// Runnable serves the dashboard at addr from the manager's cache. Every replica serves it,
// leader or not: it only reads, and its actions go through the API server.
func Runnable(mgr manager.Manager, addr string, opts Options) manager.Runnable {
	return &runnable{mgr: mgr, addr: addr, opts: opts}
}

type runnable struct {
	mgr  manager.Manager
	addr string
	opts Options
}

func (r *runnable) Start(ctx context.Context) error {
	checker, err := client.New(r.mgr.GetConfig(), client.Options{Scheme: r.mgr.GetScheme(), Mapper: r.mgr.GetRESTMapper()})
	if err != nil {
		return err
	}
	src, err := NewSource(ctx, r.mgr.GetCache(), checker)
	if err != nil {
		return err
	}
	srv, err := New(src, r.opts)
	if err != nil {
		return err
	}
	return Serve(ctx, r.addr, srv, r.opts.Log)
}

func (r *runnable) NeedLeaderElection() bool { return false }
