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

package metrics

import (
	"context"
	"slices"
	"testing"

	clientmetrics "k8s.io/client-go/tools/metrics"
)

type recordedHosts []string

func (r *recordedHosts) Increment(_ context.Context, _, _, host string) { *r = append(*r, host) }

func TestCountManagedClustersAsOne(t *testing.T) {
	saved := clientmetrics.RequestResult
	defer func() { clientmetrics.RequestResult = saved }()
	got := &recordedHosts{}
	clientmetrics.RequestResult = got
	CountManagedClustersAsOne("https://10.0.0.1:6443")
	for _, host := range []string{"10.0.0.1:6443", "127.1.0.7:443", "prod.example.com:6443"} {
		clientmetrics.RequestResult.Increment(context.Background(), "200", "GET", host)
	}
	if want := []string{"10.0.0.1:6443", ManagedClustersHost, ManagedClustersHost}; !slices.Equal(*got, want) {
		t.Errorf("hosts counted: %v, want %v", *got, want)
	}
}
