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
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// readCopy reads the frozen copy called name, of an original in namespace, as the controller:
// from the controller's namespace, or beside the original where an earlier release made it. A
// copy the controller chose (named by a summary's frozen content) is always read. One the
// spec names itself (named: a promotion's stage profile names its promotion's copies) is read
// only when rd lets the profile (tenancy.Readers.MayReadCopy), and only from the controller's
// namespace: beside the original, it is any referenced object (rd.Referenced). It reports
// false, leaving obj untouched, when there is no copy to read.
func readCopy(ctx context.Context, rd tenancy.Readers, namespace, name string, obj client.Object, named bool) (bool, error) {
	var allow func(client.Object) bool
	if named {
		allow = rd.MayReadCopy
	}
	if found, err := freeze.GetCopy(ctx, rd.Controller, namespace, name, obj, allow); found || err != nil || named {
		return found, err
	}
	err := rd.Controller.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
