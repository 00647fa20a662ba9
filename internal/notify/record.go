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

package notify

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MaxRecords bounds the settled events the record keeps, the newest kept: far more than the
// transitions that happen within MaxAge, after which an event is not sent anyway.
const MaxRecords = 2000

// recordKey is the ConfigMap key of the record.
const recordKey = "settled"

// Record keeps, in a ConfigMap of the controller's namespace, the events settled (delivered, or
// dropped after the bound) per endpoint, so that a restarted controller does not send them
// again. Each line is "endpoint id unix-seconds".
type Record struct {
	Client client.Client
	// Reader reads the ConfigMap from the API server, not a cache.
	Reader client.Reader
	Key    types.NamespacedName
}

// Load reads the settled events, "endpoint/id" to when they settled.
func (r *Record) Load(ctx context.Context) (map[string]time.Time, error) {
	cm := &corev1.ConfigMap{}
	err := r.Reader.Get(ctx, r.Key, cm)
	if apierrors.IsNotFound(err) {
		return map[string]time.Time{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the notification record: %w", err)
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(cm.Data[recordKey], "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		sec, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		out[f[0]+"/"+f[1]] = time.Unix(sec, 0)
	}
	return out, nil
}

// Save writes the settled events, the newest MaxRecords of them.
func (r *Record) Save(ctx context.Context, settled map[string]time.Time) error {
	keys := make([]string, 0, len(settled))
	for k := range settled {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := settled[b].Compare(settled[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(keys) > MaxRecords {
		for _, k := range keys[MaxRecords:] {
			delete(settled, k)
		}
		keys = keys[:MaxRecords]
	}
	var b strings.Builder
	for _, k := range keys {
		ep, id, _ := strings.Cut(k, "/")
		fmt.Fprintf(&b, "%s %s %d\n", ep, id, settled[k].Unix())
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.Key.Name, Namespace: r.Key.Namespace,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "stagecoach"}}}
	err := r.Reader.Get(ctx, r.Key, cm)
	switch {
	case apierrors.IsNotFound(err):
		cm.Data = map[string]string{recordKey: b.String()}
		return r.Client.Create(ctx, cm)
	case err != nil:
		return err
	}
	cm.Data = map[string]string{recordKey: b.String()}
	return r.Client.Update(ctx, cm)
}
