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

package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/event"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func cluster(key string) *libv1beta1.SveltosCluster {
	c := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	if key != "" {
		c.Annotations = map[string]string{libv1beta1.ShardAnnotation: key}
	}
	return c
}

func TestOwns(t *testing.T) {
	for _, tc := range []struct {
		shard   Key
		cluster *libv1beta1.SveltosCluster
		want    bool
	}{
		{"", cluster(""), true},
		{"", cluster("a"), false},
		{"a", cluster("a"), true},
		{"a", cluster(""), false},
		{"a", cluster("b"), false},
		{"", nil, true},
		{"a", nil, false},
	} {
		got := tc.shard.Owns(nil)
		if tc.cluster != nil {
			got = tc.shard.Owns(tc.cluster)
		}
		if got != tc.want {
			t.Errorf("shard %q owns %v: %v, want %v", tc.shard, tc.cluster, got, tc.want)
		}
	}
}

func TestMoved(t *testing.T) {
	if !Moved.Update(event.UpdateEvent{ObjectOld: cluster(""), ObjectNew: cluster("a")}) {
		t.Error("a cluster moving to shard a is not passed")
	}
	if Moved.Update(event.UpdateEvent{ObjectOld: cluster("a"), ObjectNew: cluster("a")}) {
		t.Error("a cluster staying in shard a is passed")
	}
	if Moved.Create(event.CreateEvent{Object: cluster("a")}) {
		t.Error("creations are passed")
	}
}

func TestLeaderElectionID(t *testing.T) {
	for key, want := range map[Key]string{
		"":     "stagecoach.dev",
		"a":    "stagecoach.dev-a",
		"eu-1": "stagecoach.dev-eu-1",
		"EU_1": "stagecoach.dev-" + hashed("EU_1"),
		"x.":   "stagecoach.dev-" + hashed("x."),
	} {
		got := key.LeaderElectionID("stagecoach.dev")
		if got != want {
			t.Errorf("LeaderElectionID of %q = %q, want %q", key, got, want)
		}
		if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
			t.Errorf("LeaderElectionID of %q = %q, not a valid name: %v", key, got, errs)
		}
	}
}

func hashed(k Key) string {
	sum := sha256.Sum256([]byte(k))
	return hex.EncodeToString(sum[:8])
}

func TestUserAgent(t *testing.T) {
	if got := Key("").UserAgent("stagecoach/v1"); got != "stagecoach/v1" {
		t.Errorf("default shard's user agent: %q", got)
	}
	if got := Key("a").UserAgent("stagecoach/v1"); got != "stagecoach/v1 shard/a" {
		t.Errorf("shard a's user agent: %q", got)
	}
}
