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

package chaos

import (
	"context"
	"encoding/json"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// promotionState says where the promotion and its ClusterSummaries stand, for a trial that
// waited for the Sveltos dialect in vain.
func (e *env) promotionState() string {
	ctx := context.Background()
	var out []string
	p := &configv1beta1.ClusterPromotion{}
	if err := e.c.Get(ctx, client.ObjectKey{Name: "chaos"}, p); err != nil {
		return err.Error()
	}
	status, _ := json.Marshal(p.Status)
	out = append(out, "promotion chaos: "+string(status))
	summaries := &configv1beta1.ClusterSummaryList{}
	if err := e.c.List(ctx, summaries); err == nil {
		for _, s := range summaries.Items {
			status, _ := json.Marshal(s.Status)
			out = append(out, "summary "+s.Namespace+"/"+s.Name+": "+string(status))
		}
	}
	return strings.Join(out, "; ")
}
