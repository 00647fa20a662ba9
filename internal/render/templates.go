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

package render

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// instantiator runs a summary's templates. It reads the cluster object, live, and the objects
// of templateResourceRefs, through their frozen copies where the version has them, once, the
// first time a template needs them: a summary without templates reads neither.
type instantiator struct {
	ctx    context.Context
	rd     tenancy.Readers
	cs     *configv1beta1.ClusterSummary
	copies map[freeze.Ref]string

	cluster *tpl.Data // the cluster alone, for the names of references
	data    *tpl.Data // the cluster and the templateResourceRefs objects
}

func newInstantiator(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary) *instantiator {
	return &instantiator{ctx: ctx, rd: rd, cs: cs, copies: freeze.Decode(cs.Spec.FrozenContent)}
}

// SummaryInstantiate is the Instantiate of a summary's patches and Kustomize values: Sveltos
// templates over its cluster and the objects of its templateResourceRefs, read once and only
// when a text is a template.
func SummaryInstantiate(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary) Instantiate {
	in := newInstantiator(ctx, rd, cs)
	return func(text string) (string, error) { return in.instantiate("template", text) }
}

// clusterData reads the summary's cluster, as it is now: Sveltos reads it live too.
func (in *instantiator) clusterData() (tpl.Data, error) {
	if in.cluster != nil {
		return *in.cluster, nil
	}
	spec := &in.cs.Spec
	if spec.ClusterType == libv1beta1.ClusterTypeCapi {
		return tpl.Data{}, permanent(fmt.Errorf("templates: cluster %s/%s is a Cluster API cluster, which Stagecoach does not serve",
			spec.ClusterNamespace, spec.ClusterName))
	}
	cluster := &libv1beta1.SveltosCluster{}
	if err := in.rd.Controller.Get(in.ctx, client.ObjectKey{Namespace: spec.ClusterNamespace, Name: spec.ClusterName}, cluster); err != nil {
		return tpl.Data{}, fmt.Errorf("templates: reading SveltosCluster %s/%s: %w", spec.ClusterNamespace, spec.ClusterName, err)
	}
	// The typed object read from a cache has no apiVersion and kind; templates may print them.
	cluster.APIVersion, cluster.Kind = libv1beta1.GroupVersion.String(), "SveltosCluster"
	d, err := tpl.NewData(cluster, nil)
	if err != nil {
		return d, err
	}
	in.cluster = &d
	return d, nil
}

// run instantiates text, a template called name, with data; a template's failure is permanent.
func run(name, text string, data tpl.Data) (string, error) {
	out, err := tpl.Instantiate(name, text, data)
	if tpl.IsError(err) {
		return "", permanent(err)
	}
	return out, err
}

// reference resolves the namespace and name of a reference, which may be templates of the
// cluster; an empty namespace is the cluster's.
func (in *instantiator) reference(what, namespace, name string) (string, string, error) {
	if namespace == "" {
		namespace = in.cs.Spec.ClusterNamespace
	}
	if !freeze.IsTemplated(namespace) && !freeze.IsTemplated(name) {
		return namespace, name, nil
	}
	data, err := in.clusterData()
	if err != nil {
		return "", "", err
	}
	if namespace, err = run(what+" namespace", namespace, data); err != nil {
		return "", "", err
	}
	if name, err = run(what+" name", name, data); err != nil {
		return "", "", err
	}
	return namespace, name, nil
}

// fullData is the cluster with the objects of the templateResourceRefs.
func (in *instantiator) fullData() (tpl.Data, error) {
	if in.data != nil {
		return *in.data, nil
	}
	d, err := in.clusterData()
	if err != nil {
		return d, err
	}
	objects := map[string]*unstructured.Unstructured{}
	refs := in.cs.Spec.ClusterProfileSpec.TemplateResourceRefs
	for i := range refs {
		t := &refs[i]
		u, err := in.templateObject(t)
		if err != nil {
			return d, err
		}
		if u != nil {
			objects[t.Identifier] = u
		}
	}
	d.MgmtResources = map[string]map[string]any{}
	for id, u := range objects {
		d.MgmtResources[id] = u.Object
	}
	in.data = &d
	return d, nil
}

// templateObject reads the object of a templateResourceRef: the version's frozen copy when it
// has one, the object itself otherwise. Nil when an optional object does not exist.
func (in *instantiator) templateObject(t *configv1beta1.TemplateResourceRef) (*unstructured.Unstructured, error) {
	what := fmt.Sprintf("templateResourceRefs %q", t.Identifier)
	if t.Resource.Kind == "" || t.Resource.Name == "" {
		return nil, permanent(fmt.Errorf("%s: resource needs a kind and a name", what))
	}
	namespace, name, err := in.reference(what, t.Resource.Namespace, t.Resource.Name)
	if err != nil {
		return nil, err
	}
	ref := freeze.ObjectRef(t.Resource.APIVersion, t.Resource.Kind, namespace, name)
	var u *unstructured.Unstructured
	if cp, ok := in.copies[ref]; ok {
		// A copy that is gone reads as its original.
		if u, err = objectCopy(in.ctx, in.rd, namespace, cp, false); err != nil {
			return nil, fmt.Errorf("%s: reading the copy of %s: %w", what, ref, err)
		}
	}
	if u == nil && ref.Kind == "v1/Secret" {
		// A promotion's stage profile names the copy itself.
		if u, err = objectCopy(in.ctx, in.rd, namespace, name, true); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	if u == nil {
		if u, err = freeze.ReadObject(in.ctx, in.rd.Referenced(), ref); err != nil {
			if meta.IsNoMatchError(err) {
				return nil, permanent(fmt.Errorf("%s: kind %s is not served by the management cluster", what, ref.Kind))
			}
			return nil, fmt.Errorf("%s: reading %s %s/%s%s: %w", what, t.Resource.Kind, namespace, name, in.rd.As(), err)
		}
	}
	if u == nil {
		if t.Optional {
			return nil, nil
		}
		// Not permanent: the user may well create it next.
		return nil, fmt.Errorf("%s: %s %s/%s does not exist", what, t.Resource.Kind, namespace, name)
	}
	frozen, err := freeze.CopiedObject(u)
	if err != nil {
		return nil, err
	}
	if frozen != nil {
		u = frozen
	}
	u.Object = freeze.TemplateObject(u.Object, t)
	return u, nil
}

// instantiate runs text, a template called name, over the cluster and the templateResourceRefs
// objects.
func (in *instantiator) instantiate(name, text string) (string, error) {
	if !freeze.IsTemplated(text) {
		return text, nil
	}
	data, err := in.fullData()
	if err != nil {
		return "", err
	}
	return run(name, text, data)
}

// objectCopy reads the frozen copy called name of an object of namespace from the controller's
// namespace, as a v1 Secret; nil when there is none there.
func objectCopy(ctx context.Context, rd tenancy.Readers, namespace, name string, named bool) (*unstructured.Unstructured, error) {
	secret := &corev1.Secret{}
	if found, err := readCopy(ctx, rd, namespace, name, secret, named); !found || err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(secret)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("v1")
	u.SetKind("Secret")
	return u, nil
}
