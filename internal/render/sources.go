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
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Source is the content of a ConfigMap, Secret or Flux source a profile refers to: its data,
// key by key (for a Flux source, the manifests under the reference's path, by file path).
type Source struct {
	Kind, Namespace, Name string
	// Data is nil when an optional object does not exist.
	Data map[string][]byte
	// Template and Lua say that the content is a template (annotation projectsveltos.io/template)
	// or a Lua script (projectsveltos.io/lua). Hashes see the content as rendered, not these.
	Template bool `json:"-"`
	Lua      bool `json:"-"`
	// Annotations of the object, which say how its content is read (a template, for one).
	Annotations map[string]string `json:"-"`
	// Revision is a Flux source's artifact revision, e.g. "main@sha1:<commit>".
	Revision string `json:",omitempty"`

	// artifact is set when a ConfigMap reference names the frozen copy of a Flux source's
	// artifact, which fluxPolicySource reads.
	artifact bool
}

// String names the source: "ConfigMap namespace/name".
func (s Source) String() string { return s.Kind + " " + s.Namespace + "/" + s.Name }

// sortedKeys gives a source's keys in a stable order, which is the order documents deploy in.
func (s Source) sortedKeys() []string {
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readSource fetches a referenced ConfigMap or Secret from the management cluster. An empty
// namespace means the cluster's namespace; a namespace or name may be a template of the cluster
// (in resolves it). A Secret deployed by policyRefs must have the type
// reserved for profile content, so that no ordinary Secret is pushed to clusters by mistake.
//
// The instantiator's copies map references onto the frozen copies to read instead (see package
// freeze), which the controller reads (readCopy); a copy that is gone reads as its original,
// which the profile's tenant reads. Messages and hashes name the original either way.
func readSource(ctx context.Context, kind, namespace, name string, optional, profileContent bool, in *instantiator) (Source, error) {
	namespace, name, err := in.reference(kind+" "+name, namespace, name)
	if err != nil {
		return Source{Kind: kind, Namespace: namespace, Name: name}, err
	}
	copies := in.copies
	src := Source{Kind: kind, Namespace: namespace, Name: name}
	key := client.ObjectKey{Namespace: namespace, Name: name}
	get := func(obj client.Object) error {
		if cp, ok := copies[freeze.Ref{Kind: kind, Namespace: namespace, Name: name}]; ok {
			// A copy that is gone reads as its original.
			if found, err := readCopy(ctx, in.rd, namespace, cp, obj, false); found || err != nil {
				return err
			}
		}
		// A promotion's stage profile names the copy itself.
		if found, err := readCopy(ctx, in.rd, namespace, name, obj, true); found || err != nil {
			return err
		}
		return in.rd.Referenced().Get(ctx, key, obj)
	}
	annotations := func(obj client.Object) {
		src.Template, src.Lua = tpl.IsTemplate(obj.GetAnnotations()), tpl.IsLua(obj.GetAnnotations())
	}
	switch kind {
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err = get(cm); err == nil {
			if _, ok := freeze.IsArtifactCopy(cm); ok {
				src.artifact = true
				return src, nil
			}
			annotations(cm)
			src.Data, src.Annotations = map[string][]byte{}, cm.Annotations
			for k, v := range cm.Data {
				src.Data[k] = []byte(v)
			}
			for k, v := range cm.BinaryData {
				src.Data[k] = v
			}
		}
	case "Secret":
		secret := &corev1.Secret{}
		if err = get(secret); err == nil {
			if profileContent && secret.Type != libv1beta1.ClusterProfileSecretType {
				return src, permanent(fmt.Errorf("%s has type %q: Secrets deployed by a profile must have type %q",
					src, secret.Type, libv1beta1.ClusterProfileSecretType))
			}
			annotations(secret)
			src.Data, src.Annotations = secret.Data, secret.Annotations
			if src.Data == nil {
				src.Data = map[string][]byte{}
			}
		}
	default:
		return src, permanent(fmt.Errorf("%s: kind %q is not supported; use a ConfigMap or a Secret", src, kind))
	}
	if apierrors.IsNotFound(err) {
		if optional {
			return src, nil
		}
		// Not permanent: the user may well create it next.
		return src, fmt.Errorf("%s does not exist", src)
	}
	if err != nil {
		return src, fmt.Errorf("reading %s%s: %w", src, in.rd.As(), err)
	}
	return src, nil
}

// PolicySources fetches the content of every ConfigMap, Secret and Flux source the summary's
// policyRefs name, in order. The content of ConfigMaps and Secrets annotated
// projectsveltos.io/template is instantiated for the cluster, key by key; content made by a Lua
// script (projectsveltos.io/lua) is refused.
func PolicySources(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary) ([]Source, error) {
	var out []Source
	in := newInstantiator(ctx, rd, cs)
	for _, ref := range cs.Spec.ClusterProfileSpec.PolicyRefs {
		var src Source
		var err error
		switch {
		case ref.RemoteURL != nil || (ref.Kind != "ConfigMap" && ref.Kind != "Secret" && !fluxsource.IsKind(ref.Kind)):
			return nil, permanent(fmt.Errorf("policyRef %s %s/%s: only ConfigMap, Secret, GitRepository, OCIRepository and Bucket references are supported",
				ref.Kind, ref.Namespace, ref.Name))
		case fluxsource.IsKind(ref.Kind):
			// Its name and namespace may be templates of the cluster, as for a ConfigMap.
			if ref.Namespace, ref.Name, err = in.reference(ref.Kind+" "+ref.Name, ref.Namespace, ref.Name); err == nil {
				src, err = fluxPolicySource(ctx, rd, ref, cs)
			}
		default:
			src, err = readSource(ctx, ref.Kind, ref.Namespace, ref.Name, ref.Optional, true, in)
			if err == nil && src.artifact {
				// A promotion's stage refers to the frozen artifact of a Flux source itself.
				src, err = fluxPolicySource(ctx, rd, ref, cs)
			}
		}
		if err != nil {
			return nil, err
		}
		if err := instantiateSource(in, &src); err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// luaRefused refuses content a Lua script would make, which Stagecoach does not run.
func (s *Source) luaRefused() error {
	if s.Lua && s.Data != nil {
		return permanent(fmt.Errorf("%s: content made by a Lua script (annotation %s) is not supported by Stagecoach; "+
			"use a Go template (annotation %s) instead", s, tpl.LuaAnnotation, tpl.TemplateAnnotation))
	}
	return nil
}

// instantiateSource instantiates the content of a source that is a template, key by key.
func instantiateSource(in *instantiator, src *Source) error {
	if err := src.luaRefused(); err != nil {
		return err
	}
	if !src.Template || src.Data == nil {
		return nil
	}
	data := make(map[string][]byte, len(src.Data))
	for _, k := range src.sortedKeys() {
		out, err := in.instantiate(fmt.Sprintf("%s key %s", src, k), string(src.Data[k]))
		if err != nil && src.Kind == "Secret" && IsPermanent(err) {
			// Template errors quote the template, here a Secret's content.
			return permanent(fmt.Errorf("%s key %s is a template that %s", src, k, contentError(*src, err)))
		}
		if err != nil {
			return err
		}
		data[k] = []byte(out)
	}
	src.Data = data
	return nil
}
