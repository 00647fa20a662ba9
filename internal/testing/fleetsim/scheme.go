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

package fleetsim

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// typedScheme knows the Go types of the built-in kinds client-go has schemas for. It is the
// simulator's own rather than client-go's global scheme, which other packages of the same
// program add their kinds to.
var typedScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic("fleetsim: building the scheme of built-in kinds: " + err.Error())
	}
	return s
}()

// typedDecoder decodes protobuf, which client-go's generated clients send for built-in kinds.
var typedDecoder = serializer.NewCodecFactory(typedScheme).UniversalDeserializer()
