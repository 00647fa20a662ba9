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

// Command render writes Stagecoach's release manifest: the Helm chart rendered with its default
// values into namespace stagecoach-system, CRDs first, for `kubectl apply -f`.
//
//	go run ./hack/render > dist/install.yaml
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
)

func main() {
	out, err := chartrender.Render(context.Background(), "charts/stagecoach",
		chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", CRDs: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print("# Stagecoach, rendered from charts/stagecoach by `make dist`. Apply after creating namespace stagecoach-system.\n" + out)
}
