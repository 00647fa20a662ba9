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

// Package freeze keeps the content a rollout refers to as it was when a version started. Each
// ConfigMap or Secret a version refers to is copied, once per content, into an immutable object
// owned by the rollout, and the version refers to the copy: an edit to the original makes a new
// version, and the clusters that version has not reached yet keep deploying the copy they have.
package freeze

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Labels and annotations of a copy.
const (
	// OwnerLabel names the rollout a copy was made for: a ClusterPromotion's, a
	// ClusterProfile's or a Profile's name.
	OwnerLabel = "stagecoach.dev/frozen-for"
	// OwnerKindLabel is the kind of that rollout.
	OwnerKindLabel = "stagecoach.dev/frozen-for-kind"
	// SourceAnnotation says what a copy was copied from: "ConfigMap namespace/name".
	SourceAnnotation = "stagecoach.dev/frozen-from"
)

// Owner is the rollout copies are made for; they go with it.
type Owner struct {
	Object client.Object
	Kind   string
}

func (o Owner) labels() map[string]string {
	l := map[string]string{OwnerLabel: o.Object.GetName(), OwnerKindLabel: o.Kind}
	if ns := o.Object.GetNamespace(); ns != "" {
		l[OwnerNamespaceLabel] = ns
	}
	return l
}

// PromotionCopies are the labels of the copies made for the named ClusterPromotion, which its
// stage profiles name directly; nil for no promotion.
func PromotionCopies(promotion string) map[string]string {
	if promotion == "" {
		return nil
	}
	return map[string]string{OwnerLabel: promotion, OwnerKindLabel: "ClusterPromotion"}
}

// IsOriginal reports whether obj, a ConfigMap or Secret, is no copy: an edit to an original is
// what a watch on referenced content looks for.
func IsOriginal(obj client.Object) bool { return !IsCopy(obj) && !isObjectCopy(obj) }

// IsCopy reports whether obj is a copy: a reference to it is frozen already.
func IsCopy(obj client.Object) bool {
	_, ok := obj.GetLabels()[OwnerLabel]
	return ok
}

// Original is the reference to obj, a ConfigMap or Secret of the given kind, unless obj is a
// copy: an edit to an original is what a watch on referenced content looks for.
func Original(kind string, obj client.Object) (Ref, bool) {
	return Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}, !IsCopy(obj)
}

// Ref is what a version refers to: a ConfigMap, a Secret, a Flux source (by kind), or an object
// of templateResourceRefs (Kind "apiVersion/kind").
type Ref struct{ Kind, Namespace, Name string }

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// Content is a referenced object as read; Object is nil when it does not exist (it is then
// read live, and reported by whoever deploys it). For a Flux source, Artifact is set instead,
// unless the source has no artifact yet.
type Content struct {
	Ref
	Object   client.Object
	Artifact *Artifact
}

// UnservedError is a reference to an object of a kind the management cluster does not serve
// (a CRD not installed): a spec to fix, not a failure to retry.
type UnservedError struct{ Ref Ref }

func (e UnservedError) Error() string {
	return fmt.Sprintf("templateResourceRefs: kind %s (%s/%s) is not served by the management cluster; install its CRD or remove the reference",
		e.Ref.Kind, e.Ref.Namespace, e.Ref.Name)
}

// Read reads every ref from the management cluster, in a stable order, without duplicates, as
// the profile's tenant (rd.Referenced): what the tenant may not read fails with the API server's
// words.
func Read(ctx context.Context, rd tenancy.Readers, refs []Ref) ([]Content, error) {
	c := rd.Referenced()
	refs = slices.Clone(refs)
	slices.SortFunc(refs, func(a, b Ref) int { return strings.Compare(a.String(), b.String()) })
	refs = slices.Compact(refs)
	out := make([]Content, 0, len(refs))
	for _, ref := range refs {
		if obj, found, err := readNamedCopy(ctx, rd, ref); err != nil {
			return nil, fmt.Errorf("reading %s: %w", ref, err)
		} else if found {
			// Frozen already: Ensure makes no copy of it.
			out = append(out, Content{Ref: ref, Object: obj})
			continue
		}
		if ref.IsObject() {
			u, err := ReadObject(ctx, c, ref)
			if meta.IsNoMatchError(err) {
				return nil, UnservedError{Ref: ref}
			}
			if err != nil {
				return nil, fmt.Errorf("reading %s%s: %w", ref, rd.As(), err)
			}
			ct := Content{Ref: ref}
			if u != nil {
				ct.Object = u
			}
			out = append(out, ct)
			continue
		}
		if fluxsource.IsKind(ref.Kind) {
			ct, err := readArtifact(ctx, rd, ref)
			if err != nil {
				return nil, err
			}
			out = append(out, ct)
			continue
		}
		var obj client.Object
		switch ref.Kind {
		case "ConfigMap":
			obj = &corev1.ConfigMap{}
		case "Secret":
			obj = &corev1.Secret{}
		default:
			continue
		}
		err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj)
		switch {
		case apierrors.IsNotFound(err):
			obj = nil
		case err != nil:
			return nil, fmt.Errorf("reading %s%s: %w", ref, rd.As(), err)
		}
		out = append(out, Content{Ref: ref, Object: obj})
	}
	return out, nil
}

// readNamedCopy reads, as the controller, a copy that a spec names itself (a promotion's stage
// profile names its promotion's copies, by their original's namespace): copies live in the
// controller's namespace, which tenants may not read, so rd.Referenced would not find it. Only a
// copy rd lets the profile read (tenancy.Readers.MayReadCopy) is read; it reports false
// otherwise, and the reference is read as any other.
func readNamedCopy(ctx context.Context, rd tenancy.Readers, ref Ref) (client.Object, bool, error) {
	if rd.Controller == nil {
		return nil, false, nil
	}
	var obj client.Object
	switch ref.Kind {
	case "ConfigMap":
		obj = &corev1.ConfigMap{}
	case "Secret", "v1/Secret":
		obj = &corev1.Secret{}
	default:
		return nil, false, nil
	}
	found, err := GetCopy(ctx, rd.Controller, ref.Namespace, ref.Name, obj, rd.MayReadCopy)
	if !found || err != nil || ref.Kind != "v1/Secret" {
		return obj, found, err
	}
	// A templateResourceRefs object is read as an unstructured one.
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("v1")
	u.SetKind("Secret")
	return u, true, nil
}

// payload is what a copy keeps of an object: what is deployed from it, and the annotations
// that say how (keptAnnotations; left out when there are none, so that the digest of content
// without them stays what it was).
func payload(obj client.Object) any {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return struct {
			Data        map[string]string `json:"data,omitempty"`
			BinaryData  map[string][]byte `json:"binaryData,omitempty"`
			Annotations map[string]string `json:"annotations,omitempty"`
		}{o.Data, o.BinaryData, kept(o)}
	case *corev1.Secret:
		return struct {
			Type        corev1.SecretType `json:"type,omitempty"`
			Data        map[string][]byte `json:"data,omitempty"`
			Annotations map[string]string `json:"annotations,omitempty"`
		}{o.Type, o.Data, kept(o)}
	case *unstructured.Unstructured:
		return o.Object
	}
	return nil
}

// keptAnnotations are the annotations of a ConfigMap or Secret that its copy keeps: they say
// whether its content is a template.
var keptAnnotations = []string{tpl.TemplateAnnotation, tpl.LuaAnnotation}

func kept(obj client.Object) map[string]string {
	var out map[string]string
	for _, k := range keptAnnotations {
		if v, ok := obj.GetAnnotations()[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// contentPayload is what identifies a content: its payload, or for a Flux source its artifact.
func contentPayload(ct Content) any {
	if ct.Artifact != nil {
		return ct.Artifact
	}
	if ct.Object != nil {
		return payload(ct.Object)
	}
	return nil
}

func sum(v any) []byte {
	data, _ := json.Marshal(v) // maps of strings and bytes: cannot fail
	s := sha256.Sum256(data)
	return s[:]
}

// Digest identifies the contents: it changes when any of them is edited, created or deleted.
func Digest(contents []Content) []byte {
	type entry struct {
		Ref     Ref `json:"ref"`
		Payload any `json:"payload"`
	}
	entries := make([]entry, 0, len(contents))
	for _, ct := range contents {
		entries = append(entries, entry{Ref: ct.Ref, Payload: contentPayload(ct)})
	}
	return sum(entries)
}

// copyName names the copy of a content for an owner: the original's name and a hash of the
// owner, the original's namespace and what it holds, so that an owner's equal contents share
// one copy, an edit makes another, and two rollouts reading the same object never share (nor
// delete) each other's copy. Copies of every namespace share the controller's.
func copyName(ct Content, owner Owner) string {
	suffix := "-" + hex.EncodeToString(sum(struct {
		Owner     map[string]string `json:"owner"`
		Namespace string            `json:"namespace"`
		Payload   any               `json:"payload"`
	}{owner.labels(), ct.Namespace, contentPayload(ct)}))[:10]
	const maxName = 253
	return strings.TrimRight(ct.Name[:min(len(ct.Name), maxName-len(suffix))], "-.") + suffix
}

// Ensure makes the copy of each existing content, owned by owner and labelled for it, and
// returns, for each ref it copied, the name of the copy (in the controller's namespace; specs
// keep naming the original's namespace, and readers look for the copy with GetCopy). A copy
// that exists already is used as it is: copies are immutable and named by their content.
func Ensure(ctx context.Context, c client.Client, scheme *runtime.Scheme, owner Owner, contents []Content) (map[Ref]string, error) {
	names := map[Ref]string{}
	for _, ct := range contents {
		if ct.Artifact != nil {
			name, err := ensureArtifact(ctx, c, scheme, owner, ct)
			if err != nil {
				return nil, err
			}
			names[ct.Ref] = name
			continue
		}
		if ct.Object == nil || IsCopy(ct.Object) || isObjectCopy(ct.Object) {
			continue
		}
		var cp client.Object
		switch o := ct.Object.(type) {
		case *unstructured.Unstructured:
			data, err := json.Marshal(o.Object)
			if err != nil {
				return nil, fmt.Errorf("copying %s: %w", ct.Ref, err)
			}
			cp = &corev1.Secret{Type: ObjectCopyType, Data: map[string][]byte{ObjectCopyKey: data}, Immutable: new(bool)}
			*cp.(*corev1.Secret).Immutable = true
		case *corev1.ConfigMap:
			cp = &corev1.ConfigMap{Data: o.Data, BinaryData: o.BinaryData, Immutable: new(bool)}
			*cp.(*corev1.ConfigMap).Immutable = true
		case *corev1.Secret:
			cp = &corev1.Secret{Type: o.Type, Data: o.Data, Immutable: new(bool)}
			*cp.(*corev1.Secret).Immutable = true
		}
		cp.SetNamespace(namespace)
		cp.SetName(copyName(ct, owner))
		names[ct.Ref] = cp.GetName()
		existing := cp.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKeyFromObject(cp), existing); err == nil {
			continue // made already (a read from the cache: most reconciles write nothing here)
		} else if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading the copy of %s: %w", ct.Ref, err)
		}
		annotations := kept(ct.Object)
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[SourceAnnotation] = ct.String()
		cp.SetAnnotations(annotations)
		if err := place(cp, owner, scheme); err != nil {
			return nil, err
		}
		if err := c.Create(ctx, cp); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("copying %s: %w", ct.Ref, err)
		}
	}
	return names, nil
}

// Collect deletes the copies made for the owner that keep does not list (by Ref of the copy, as
// specs name it: in the original's namespace). A nil keep deletes them all, as when the owner
// goes: a Profile's copies have no owner reference for garbage collection to follow.
func Collect(ctx context.Context, c client.Client, owner Owner, keep map[Ref]bool) error {
	copies, err := list(ctx, c, owner)
	if err != nil {
		return err
	}
	for _, obj := range copies {
		if keep[specRef(obj)] {
			continue
		}
		err := c.Delete(ctx, obj, client.Preconditions{UID: ptr(obj.GetUID())})
		if earlier(obj, err) {
			continue // made beside its original by an earlier release: it goes with its owner
		}
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the copy %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// Release leaves the owner's copies to whoever still refers to them (profiles kept when their
// promotion is deleted): they lose the owner's reference and label, so that neither garbage
// collection nor Collect deletes them.
func Release(ctx context.Context, c client.Client, owner Owner) error {
	copies, err := list(ctx, c, owner)
	if err != nil {
		return err
	}
	for _, obj := range copies {
		base := obj.DeepCopyObject().(client.Object)
		refs := obj.GetOwnerReferences()
		obj.SetOwnerReferences(slices.DeleteFunc(refs, func(o metav1.OwnerReference) bool { return o.UID == owner.Object.GetUID() }))
		labels := obj.GetLabels()
		delete(labels, OwnerLabel)
		delete(labels, OwnerKindLabel)
		obj.SetLabels(labels)
		err := c.Patch(ctx, obj, client.MergeFrom(base))
		if earlier(obj, err) {
			continue // it goes with the promotion; its profiles then read the original
		}
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("releasing the copy %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// list returns the copies made for the owner. A cluster-scoped owner's are found in every
// namespace: in the controller's, and beside their originals where an earlier release made
// them. A Profile's are in the controller's namespace, labelled with its namespace, or (made by
// an earlier release) in its own namespace; Profiles of one name in other namespaces have theirs.
func list(ctx context.Context, c client.Reader, owner Owner) ([]client.Object, error) {
	ns := owner.Object.GetNamespace()
	out, err := listIn(ctx, c, owner.labels(), ns, "")
	if err != nil || ns == "" {
		return out, err
	}
	old := map[string]string{OwnerLabel: owner.Object.GetName(), OwnerKindLabel: owner.Kind}
	more, err := listIn(ctx, c, old, ns, ns)
	if err != nil {
		return nil, err
	}
	for _, obj := range more {
		key := client.ObjectKeyFromObject(obj)
		if !slices.ContainsFunc(out, func(o client.Object) bool { return client.ObjectKeyFromObject(o) == key && kindOf(o) == kindOf(obj) }) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// listIn lists the ConfigMaps and Secrets labelled so in namespace ns (the controller's for a
// Profile's copies, "" for all); those labelled for a Profile of another namespace are left out.
func listIn(ctx context.Context, c client.Reader, labels map[string]string, ownerNamespace, ns string) ([]client.Object, error) {
	if ownerNamespace != "" && ns == "" {
		ns = namespace
	}
	opts := []client.ListOption{client.MatchingLabels(labels), client.InNamespace(ns)}
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, opts...); err != nil {
		return nil, err
	}
	var secrets corev1.SecretList
	if err := c.List(ctx, &secrets, opts...); err != nil {
		return nil, err
	}
	var out []client.Object
	for i := range cms.Items {
		out = append(out, &cms.Items[i])
	}
	for i := range secrets.Items {
		out = append(out, &secrets.Items[i])
	}
	return slices.DeleteFunc(out, func(o client.Object) bool {
		v, ok := o.GetLabels()[OwnerNamespaceLabel]
		return ok && v != ownerNamespace
	}), nil
}

func kindOf(obj client.Object) string {
	if _, ok := obj.(*corev1.Secret); ok {
		return "Secret"
	}
	return "ConfigMap"
}

func ptr[T any](v T) *T { return &v }
