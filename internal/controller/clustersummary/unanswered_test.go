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

package clustersummary

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/stagecoach-dev/stagecoach/internal/health"
)

// TestUnanswered: a check that could not reach the cluster is told apart from one that found
// it unhealthy or was refused by its API server.
func TestUnanswered(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://10.0.0.1/apis/apps/v1/deployments", Err: syscall.ECONNREFUSED}
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	check := func(err error) error { return &healthError{check: "available", feature: "Helm", err: err} }
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"connection refused":            {check(refused), true},
		"stream reset":                  {check(&url.Error{Op: "Get", URL: "https://10.0.0.1/", Err: errors.New("stream error: INTERNAL_ERROR")}), true},
		"deadline":                      {check(fmt.Errorf("listing: %w", context.DeadlineExceeded)), true},
		"script read failed to connect": {check(&health.EvalError{Reason: health.ReasonGetResource, Err: refused}), true},
		"API server unavailable":        {check(apierrors.NewServiceUnavailable("etcd")), true},
		"API server timeout":            {check(apierrors.NewTimeoutError("slow", 1)), true},
		"not healthy":                   {check(errors.New("Deployment app/app is not healthy: not available yet")), false},
		"not found":                     {check(apierrors.NewNotFound(deployments, "app")), false},
		"forbidden":                     {check(apierrors.NewForbidden(deployments, "app", errors.New("no"))), false},
		"script error":                  {check(&health.EvalError{Reason: health.ReasonGetResource, Err: apierrors.NewForbidden(deployments, "app", errors.New("no"))}), false},
	} {
		if got := unanswered(tc.err); got != tc.want {
			t.Errorf("%s: unanswered(%v) = %v, want %v", name, tc.err, got, tc.want)
		}
	}
}
