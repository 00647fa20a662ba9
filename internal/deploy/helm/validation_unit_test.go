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

package helm

import (
	"errors"
	"testing"

	"helm.sh/helm/v4/pkg/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/kubectl/pkg/validation"
)

// kubectlFactory stands for Helm's factory: its validator is the one parsing OpenAPI.
type kubectlFactory struct{ kube.Factory }

type kubectlSchema struct{ validation.Schema }

func (kubectlFactory) Validator(string) (validation.Schema, error) {
	return kubectlSchema{}, nil
}

// TestServerValidatedFactory: the client-side validator is skipped on servers that validate
// fields themselves, and kept on older ones and on one whose version cannot be read.
func TestServerValidatedFactory(t *testing.T) {
	for _, tc := range []struct {
		version   string
		err       error
		directive string
		skipped   bool
	}{
		{version: "v1.36.3", directive: metav1.FieldValidationStrict, skipped: true},
		{version: "v1.27.0-eks-1234", directive: metav1.FieldValidationStrict, skipped: true},
		{version: "v1.26.15", directive: metav1.FieldValidationStrict},
		{err: errors.New("connection refused"), directive: metav1.FieldValidationStrict},
		{version: "v1.26.15", directive: metav1.FieldValidationIgnore, skipped: true},
	} {
		disc := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}, FakedServerVersion: &version.Info{GitVersion: tc.version}}
		if tc.err != nil {
			disc.PrependReactor("get", "version", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
		}
		f := &serverValidatedFactory{Factory: kubectlFactory{}, discovery: disc}
		for range 2 {
			s, err := f.Validator(tc.directive)
			if err != nil {
				t.Fatal(err)
			}
			if _, null := s.(validation.NullSchema); null != tc.skipped {
				t.Errorf("%s (%v), %s: got %T, want skipped=%v", tc.version, tc.err, tc.directive, s, tc.skipped)
			}
		}
		if versions := countVersionGets(disc); versions > 1 {
			t.Errorf("%s: the server's version read %d times for one action, want at most once", tc.version, versions)
		}
	}
}

func countVersionGets(d *fakediscovery.FakeDiscovery) int {
	n := 0
	for _, a := range d.Actions() {
		if a.GetResource().Resource == "version" {
			n++
		}
	}
	return n
}
