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
	"sync"

	"helm.sh/helm/v4/pkg/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/discovery"
	"k8s.io/kubectl/pkg/validation"
)

// serverFieldValidation is the first Kubernetes release whose API servers validate fields
// themselves for every built-in and custom resource (the fieldValidation parameter, GA).
var serverFieldValidation = version.MajorMinor(1, 27)

// serverValidatedFactory is Helm's client factory with a cheaper manifest validator. Helm asks
// kubectl's validator for each manifest it builds, twice per upgrade, and that validator finds
// out whether the server validates fields itself by parsing the cluster's OpenAPI v3 document
// of each group version, anew for every action: about a third of a CPU second per upgrade of a
// small chart, two thirds of a Helm upgrade's CPU. Its answer only ever changes with the
// server's version, and Helm sends every create, patch and apply with fieldValidation=Strict,
// so on a server that validates fields the client-side pass checks nothing more: the
// validator is then a no-op, exactly what kubectl's decides for such a server. An older
// server, or one whose version cannot be read, gets kubectl's validator.
type serverValidatedFactory struct {
	kube.Factory
	discovery discovery.DiscoveryInterface

	once      sync.Once
	validates bool
}

func (f *serverValidatedFactory) Validator(directive string) (validation.Schema, error) {
	if directive == metav1.FieldValidationIgnore || f.serverValidates() {
		return validation.NullSchema{}, nil
	}
	return f.Factory.Validator(directive)
}

func (f *serverValidatedFactory) serverValidates() bool {
	f.once.Do(func() {
		info, err := f.discovery.ServerVersion()
		if err != nil {
			return
		}
		v, err := version.ParseGeneric(info.GitVersion)
		f.validates = err == nil && v.AtLeast(serverFieldValidation)
	})
	return f.validates
}
