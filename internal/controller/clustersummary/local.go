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

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// local returns the connection deploymentType Local content goes through: the management
// cluster as the profile's tenant's ServiceAccount, so that a profile can deploy there only what
// that ServiceAccount may; or, for a profile that names none, if the controller was started with
// --local-deployment-as-controller, as the controller itself.
func (d *deployment) local() (*fleet.Remote, error) {
	if d.r.management == nil {
		return nil, permanent(errors.New("deploymentType Local is not available: the controller has no connection to the management cluster"))
	}
	tenant, _, err := configv1beta1.SummaryTenant(d.cs)
	switch {
	case err != nil:
		return nil, permanent(err)
	case tenant.User() != "":
		return d.r.tenants.Remote(tenant.User())
	case d.r.localAsController:
		return d.r.management, nil
	}
	return nil, permanent(fmt.Errorf("deploymentType Local deploys to the management cluster as the ServiceAccount named by the profile's labels %s and %s, "+
		"and the profile has neither; label it with a ServiceAccount allowed to create what it deploys (or run the controller with --local-deployment-as-controller)",
		configv1beta1.ServiceAccountNameLabel, configv1beta1.ServiceAccountNamespaceLabel))
}

// readers are the identities the summary's content is read with: its tenant's ServiceAccount
// for what the profile references, the controller for its own frozen copies. A stage profile
// of a promotion of the same tenant names the promotion's copies itself; those are the
// controller's too.
func (r *Reconciler) readers(ctx context.Context, cs *configv1beta1.ClusterSummary) (tenancy.Readers, error) {
	promotion := cs.Labels[configv1beta1.PromotionNameLabel]
	return r.tenants.Of(ctx, cs, cs.Labels[configv1beta1.ProfileNameLabel] != "", promotion, freeze.PromotionCopies(promotion))
}
