//go:build e2e

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

// Package schema_test checks the generated CRDs against a real kube-apiserver: every manifest of
// the seed documents is accepted as written, the statuses the seeds show survive a round trip
// through the status subresource, invalid manifests are rejected with a message that says what to
// fix, and `kubectl get` prints the columns the seeds show.
package schema_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

var (
	mgmt   *rest.Config
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stagecoach-schema-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	fleet, err := sandbox.Up(context.Background(), sandbox.Options{Dir: filepath.Join(dir, "fleet"), Log: logr.Discard()})
	defer func() { _ = sandbox.Down(filepath.Join(dir, "fleet")) }()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the management cluster:", err)
		return 1
	}
	mgmt = fleet.Management.Config
	dyn = dynamic.NewForConfigOrDie(mgmt)
	mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(mgmt)))
	return m.Run()
}
