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

package patch

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// AddFinalizer adds finalizer to obj with a metadata patch, under an optimistic lock so that
// another controller's finalizer written meanwhile is not lost. obj takes the server's answer,
// status included: call it before the reconcile changes the status.
func AddFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return patchFinalizers(ctx, c, obj, finalizer, controllerutil.AddFinalizer)
}

// RemoveFinalizer removes finalizer from obj with a metadata patch, under an optimistic lock. An
// object already gone is not an error.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	return client.IgnoreNotFound(patchFinalizers(ctx, c, obj, finalizer, controllerutil.RemoveFinalizer))
}

func patchFinalizers(ctx context.Context, c client.Client, obj client.Object, finalizer string, change func(client.Object, string) bool) error {
	base := obj.DeepCopyObject().(client.Object)
	if !change(obj, finalizer) {
		return nil
	}
	return c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}
