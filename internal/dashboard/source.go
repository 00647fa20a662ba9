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
	"fmt"
	"slices"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// watched are the kinds the dashboard shows. It never reads Secrets.
func watched() []client.Object {
	return []client.Object{
		&configv1beta1.ClusterPromotion{}, &configv1beta1.ClusterProfile{}, &configv1beta1.Profile{}, &configv1beta1.ClusterSummary{},
		&libv1beta1.SveltosCluster{}, &clusterv1beta1.MemberCluster{},
		&placementv1beta1.ClusterStagedUpdateRun{}, &placementv1beta1.StagedUpdateRun{},
		&placementv1beta1.ClusterResourceBinding{}, &placementv1beta1.ResourceBinding{},
		&eventsv1.Event{},
	}
}

// Source is what the dashboard reads: a cache of the kinds it shows that its identity may list
// and watch, and notice of each change to them.
type Source struct {
	reader  client.Reader
	scheme  *runtime.Scheme
	changes broadcaster
	// denied maps each kind the identity may not list and watch to a sentence that says so.
	denied map[schema.GroupKind]string
	// kinds are the kinds watched, as the API server serves them.
	kinds map[schema.GroupKind]kindInfo
}

// NewSource watches, in c, each kind the dashboard shows that the identity of checker may list
// and watch in every namespace; the pages say which kinds it may not. checker asks the API
// server (SelfSubjectAccessReview), so the answer is the identity's own RBAC.
func NewSource(ctx context.Context, c cache.Cache, checker client.Client) (*Source, error) {
	s := &Source{reader: c, scheme: checker.Scheme(), denied: map[schema.GroupKind]string{}, kinds: map[schema.GroupKind]kindInfo{}}
	for _, obj := range watched() {
		gvk, err := apiutil.GVKForObject(obj, checker.Scheme())
		if err != nil {
			return nil, err
		}
		mapping, err := checker.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			s.denied[gvk.GroupKind()] = fmt.Sprintf("%s is not served by this management cluster: %v", gvk.Kind, err)
			continue
		}
		if why, err := mayWatch(ctx, checker, mapping.Resource); err != nil {
			return nil, err
		} else if why != "" {
			s.denied[gvk.GroupKind()] = why
			continue
		}
		s.kinds[gvk.GroupKind()] = kindInfo{resource: mapping.Resource.GroupResource(), namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, fmt.Errorf("watching %s: %w", gvk.Kind, err)
		}
		notify := func(any) { s.changes.notify() }
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: notify, DeleteFunc: notify, UpdateFunc: func(_, obj any) { notify(obj) },
		}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// mayWatch says why the identity may not list and watch resource in every namespace, or "".
func mayWatch(ctx context.Context, c client.Client, resource schema.GroupVersionResource) (string, error) {
	var missing []string
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: resource.Group, Resource: resource.Resource},
		}}
		if err := c.Create(ctx, review); err != nil {
			return "", fmt.Errorf("asking whether %s may be %sed: %w", resource.Resource, verb, err)
		}
		if !review.Status.Allowed {
			missing = append(missing, verb)
		}
	}
	if len(missing) == 0 {
		return "", nil
	}
	name := resource.Resource
	if resource.Group != "" {
		name += "." + resource.Group
	}
	return fmt.Sprintf("not shown: you may not %s %s in every namespace", strings.Join(missing, " or "), name), nil
}

// Get reads from the cache, or says the identity may not read the kind.
func (s *Source) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := s.check(obj); err != nil {
		return err
	}
	return s.reader.Get(ctx, key, obj, opts...)
}

// List reads from the cache, or says the identity may not read the kind.
func (s *Source) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := s.check(list); err != nil {
		return err
	}
	return s.reader.List(ctx, list, opts...)
}

// check refuses kinds that are not watched rather than let a read start an informer the
// identity may not run, which would wait for ever.
func (s *Source) check(obj runtime.Object) error {
	gvk, err := apiutil.GVKForObject(obj, s.scheme)
	if err != nil {
		return err
	}
	gk := schema.GroupKind{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List")}
	if why, ok := s.denied[gk]; ok {
		return &deniedError{why}
	}
	return nil
}

// kind is how the API server serves the kind of obj, which the identity may watch.
func (s *Source) kind(obj runtime.Object) (kindInfo, error) {
	if err := s.check(obj); err != nil {
		return kindInfo{}, err
	}
	gvk, err := apiutil.GVKForObject(obj, s.scheme)
	if err != nil {
		return kindInfo{}, err
	}
	k, ok := s.kinds[schema.GroupKind{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List")}]
	if !ok {
		return kindInfo{}, &deniedError{"not shown: the dashboard does not show " + gvk.Kind}
	}
	return k, nil
}

// Denied lists, in words, what the dashboard cannot show for want of permission.
func (s *Source) Denied() []string {
	var out []string
	for _, why := range s.denied {
		out = append(out, why)
	}
	slices.Sort(out)
	return out
}

// deniedError is a read of a kind the identity may not list.
type deniedError struct{ why string }

func (e *deniedError) Error() string { return e.why }

// broadcaster tells each subscriber that something changed; a subscriber busy with an earlier
// change sees the next one once, however many arrived meanwhile.
type broadcaster struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func (b *broadcaster) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[chan struct{}]struct{}{}
	}
	b.subs[ch] = struct{}{}
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, ch)
	}
}

func (b *broadcaster) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
