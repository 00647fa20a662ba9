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

package dashboard

import (
	"cmp"
	"errors"
	"net/http"
	"slices"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// overviewBody lists every rollout, each with its stages in outline, by kind.
type overviewBody struct {
	Sections []section
	Empty    bool
}

type section struct {
	ID, Title string
	Rows      []row
}

type row struct {
	*view.Rollout
	Href string
}

func (s *Server) overview(r *http.Request) (*pageData, error) {
	ctx := r.Context()
	var promotionRows, profileRows, runRows []row
	var promotions configv1beta1.ClusterPromotionList
	if err := s.read(ctx).List(ctx, &promotions); shown(err) != nil {
		return nil, err
	}
	for i := range promotions.Items {
		p := &promotions.Items[i]
		promotionRows = append(promotionRows, row{view.PromotionOutline(p), "/promotions/" + p.Name})
	}
	var profiles configv1beta1.ClusterProfileList
	if err := s.read(ctx).List(ctx, &profiles); shown(err) != nil {
		return nil, err
	}
	for i := range profiles.Items {
		p := &profiles.Items[i]
		if _, staged := p.Labels[configv1beta1.PromotionNameLabel]; staged {
			continue // a stage of a promotion, listed with it
		}
		ro := &view.Rollout{Kind: "ClusterProfile", Name: p.Name}
		ro.State, ro.Message = view.ProfileState(p)
		profileRows = append(profileRows, row{ro, "/profiles/" + p.Name})
	}
	for _, family := range []placementv1beta1.Family{placementv1beta1.ClusterFamily, placementv1beta1.NamespacedFamily} {
		runs := family.NewUpdateRunList()
		if err := s.read(ctx).List(ctx, runs); shown(err) != nil {
			return nil, err
		}
		for _, run := range runs.UpdateRunObjs() {
			runRows = append(runRows, row{view.RunOutline(run), runHref(run.GetNamespace(), run.GetName())})
		}
	}
	body := &overviewBody{Sections: []section{
		{ID: "promotions", Title: "ClusterPromotions", Rows: promotionRows},
		{ID: "profiles", Title: "ClusterProfiles", Rows: profileRows},
		{ID: "runs", Title: "Update runs", Rows: runRows},
	}}
	body.Empty = len(promotionRows)+len(profileRows)+len(runRows) == 0
	for _, sec := range body.Sections {
		slices.SortFunc(sec.Rows, func(a, b row) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind))
		})
	}
	return &pageData{Title: "Rollouts", Body: body}, nil
}

// shown is err unless it says only that the viewer may not list a kind, which the page says
// on its own.
func shown(err error) error {
	var denied *deniedError
	if errors.As(err, &denied) {
		return nil
	}
	return err
}
