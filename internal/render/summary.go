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
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// permanentError marks a failure that retrying the same configuration cannot fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanent(err error) error { return permanentError{err} }

// IsPermanent reports errors of this package that retrying the same configuration cannot fix:
// invalid or unsupported content, as opposed to content that may yet be created.
func IsPermanent(err error) bool {
	var perm permanentError
	return errors.As(err, &perm) || tenancy.IsRefused(err)
}

// SummaryOwner identifies a summary's content of one feature on a cluster; deployers key their
// inventories and ownership marks by it.
func SummaryOwner(cs *configv1beta1.ClusterSummary, id libv1beta1.FeatureID) string {
	return fmt.Sprintf("ClusterSummary %s/%s:%s", cs.Namespace, cs.Name, id)
}

// Requests splits the objects of every source of the summary's policyRefs (PolicySources, in
// order) between the managed cluster and, for deploymentType Local, the management cluster, with
// the options of the summary's spec, once patches (see Patches) are applied to each source's
// objects. Each target keeps its own inventory, so an object moving from one to the other is
// pruned from the first.
func Requests(cs *configv1beta1.ClusterSummary, sources []Source, patches []kustomize.Patch) (remote, local manifests.Request, err error) {
	spec := &cs.Spec.ClusterProfileSpec
	remote, local = baseRequests(cs, libv1beta1.FeatureResources)
	for i, src := range sources {
		if src.Data == nil {
			continue // an optional object that doesn't exist
		}
		objs, err := manifests.Parse(src.String(), src.Data)
		if err != nil {
			return remote, local, permanent(err)
		}
		if objs, err = applyPatches(src.String(), objs, patches); err != nil {
			return remote, local, err
		}
		for _, o := range objs {
			addMetadata(o, spec.ExtraLabels, spec.ExtraAnnotations)
		}
		ref := spec.PolicyRefs[i]
		opts := manifests.Options{SkipNamespaceCreation: ref.SkipNamespaceCreation, Force: ref.Force, Tier: ref.Tier}
		if ref.DeploymentType == configv1beta1.DeploymentTypeLocal {
			if err := profileNamespaceOnly(cs, objs, src.String()); err != nil {
				return remote, local, err
			}
			local.Objects = append(local.Objects, manifests.ObjectsOf(objs, src.String(), opts)...)
		} else {
			remote.Objects = append(remote.Objects, manifests.ObjectsOf(objs, src.String(), opts)...)
		}
	}
	return remote, local, nil
}

// profileNamespaceOnly refuses, as Sveltos does, what a Profile's summary would deploy to the
// management cluster outside the Profile's namespace (the summary's).
func profileNamespaceOnly(cs *configv1beta1.ClusterSummary, objs []*unstructured.Unstructured, source string) error {
	if family, _, _ := configv1beta1.SummaryProfile(cs); !family.Namespaced {
		return nil
	}
	for _, o := range objs {
		if o.GetNamespace() != cs.Namespace {
			return permanent(fmt.Errorf("%s: %s %q is outside namespace %q: a Profile deploys to the management cluster (deploymentType Local) "+
				"only objects of its own namespace, with metadata.namespace set", source, o.GetKind(), o.GetName(), cs.Namespace))
		}
	}
	return nil
}

// baseRequests are the requests of a feature's content, to the managed cluster and to the
// management cluster, with the options of the summary's spec and no objects yet.
func baseRequests(cs *configv1beta1.ClusterSummary, id libv1beta1.FeatureID) (remote, local manifests.Request) {
	spec := &cs.Spec.ClusterProfileSpec
	base := manifests.Request{Tier: spec.Tier, ContinueOnConflict: spec.ContinueOnConflict, DryRun: spec.SyncMode == configv1beta1.SyncModeDryRun}
	if spec.SyncMode == configv1beta1.SyncModeContinuousWithDriftDetection {
		base.DriftExclusions = spec.DriftExclusions
	}
	remote, local = base, base
	remote.Owner = SummaryOwner(cs, id)
	local.Owner = remote.Owner + ":Local"
	return remote, local
}

// addMetadata sets a profile's extraLabels and extraAnnotations on an object it deploys.
func addMetadata(obj *unstructured.Unstructured, labels, annotations map[string]string) {
	if len(labels) > 0 {
		l := obj.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		maps.Copy(l, labels)
		obj.SetLabels(l)
	}
	if len(annotations) > 0 {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		maps.Copy(a, annotations)
		obj.SetAnnotations(a)
	}
}
