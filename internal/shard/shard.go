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

// Package shard splits the managed clusters among controller replicas. A cluster (SveltosCluster
// or MemberCluster) belongs to the shard its annotation sharding.projectsveltos.io/key names, as
// in Sveltos; a cluster without it belongs to the default shard, "". Each replica serves one
// shard: it probes the shard's clusters and deploys to them, and leaves every other cluster
// alone. Objects that span clusters (profiles, promotions, placements, update runs) are driven
// by the replica of the default shard.
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// Key is the shard a replica serves; the zero value is the default shard.
type Key string

// Of is the shard a cluster belongs to.
func Of(cluster client.Object) Key {
	return Key(cluster.GetAnnotations()[libv1beta1.ShardAnnotation])
}

// Default reports whether k is the default shard, the one that also drives the objects that
// span clusters.
func (k Key) Default() bool { return k == "" }

// Owns reports whether the cluster belongs to shard k. A cluster that does not exist (nil)
// belongs to the default shard, which then cleans up after it.
func (k Key) Owns(cluster client.Object) bool {
	if cluster == nil {
		return k.Default()
	}
	return Of(cluster) == k
}

// Moved passes the updates of a cluster whose shard changes, so that the shard it joins takes
// it up and the one it leaves lets it go. It is meant to be or-ed with a watch's own predicate.
var Moved = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return Of(e.ObjectOld) != Of(e.ObjectNew)
	},
}

// LeaderElectionID is the name of the Lease the replicas of shard k elect their leader with:
// one leader per shard. A key that is not a valid name part is replaced by its hash.
func (k Key) LeaderElectionID(base string) string {
	if k.Default() {
		return base
	}
	suffix := strings.ToLower(string(k))
	if errs := validation.IsDNS1123Subdomain(base + "-" + suffix); len(errs) > 0 || suffix != string(k) {
		sum := sha256.Sum256([]byte(k))
		suffix = hex.EncodeToString(sum[:8])
	}
	return base + "-" + suffix
}

// UserAgent is the user agent of a replica of shard k that would otherwise say base: the
// default shard's says base, another's adds "shard/<key>".
func (k Key) UserAgent(base string) string {
	if k.Default() {
		return base
	}
	return base + " shard/" + string(k)
}

// String names the shard in logs and messages.
func (k Key) String() string {
	if k.Default() {
		return "the default shard"
	}
	return "shard " + string(k)
}
