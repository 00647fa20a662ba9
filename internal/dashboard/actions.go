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
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
)

// by names the dashboard in what the actions record.
const by = "the Stagecoach dashboard"

// actions serves the forms of the rollout pages. Each acts with the request's writer (the
// viewer, or Options.Writer), whose RBAC decides, and goes back to the rollout's page with what
// happened.
func (s *Server) actions() {
	s.act("/promotions/{name}/approve", func(r *http.Request, w client.Client) (string, error) {
		return operate.ApprovePromotion(r.Context(), w, r.PathValue("name"), r.PostFormValue("stage"), false)
	})
	s.act("/promotions/{name}/suspend", func(r *http.Request, w client.Client) (string, error) {
		return operate.SuspendPromotion(r.Context(), w, r.PathValue("name"), true)
	})
	s.act("/promotions/{name}/resume", func(r *http.Request, w client.Client) (string, error) {
		return operate.SuspendPromotion(r.Context(), w, r.PathValue("name"), false)
	})
	s.act("/promotions/{name}/rollback", func(r *http.Request, w client.Client) (string, error) {
		return operate.RollbackPromotion(r.Context(), w, r.PathValue("name"))
	})
	for action, pause := range map[string]bool{"pause": true, "resume": false} {
		s.act("/clusters/{namespace}/{name}/"+action, func(r *http.Request, w client.Client) (string, error) {
			return operate.PauseCluster(r.Context(), w, r.PathValue("namespace"), r.PathValue("name"), pause)
		})
	}
	s.act("/promotions/{name}/retry", func(r *http.Request, w client.Client) (string, error) {
		return operate.RetryPromotion(r.Context(), w, r.PathValue("name"), r.PostFormValue("cluster"))
	})
	for _, base := range []string{"/runs/{name}", "/namespaces/{namespace}/runs/{name}"} {
		s.actTo(base+"/retry", func(r *http.Request, w client.Client) (string, string, error) {
			namespace := r.PathValue("namespace")
			msg, created, err := operate.RetryRun(r.Context(), w, namespace, r.PathValue("name"))
			if err != nil {
				return "", "", err
			}
			return msg, runHref(namespace, created.GetName()), nil
		})
		s.act(base+"/approve", func(r *http.Request, w client.Client) (string, error) {
			return operate.ApproveRun(r.Context(), w, r.PathValue("namespace"), r.PathValue("name"), r.PostFormValue("stage"), by)
		})
		s.act(base+"/stop", func(r *http.Request, w client.Client) (string, error) {
			return operate.SetRunState(r.Context(), w, r.PathValue("namespace"), r.PathValue("name"), placementv1beta1.StateStop)
		})
		s.act(base+"/resume", func(r *http.Request, w client.Client) (string, error) {
			return operate.SetRunState(r.Context(), w, r.PathValue("namespace"), r.PathValue("name"), placementv1beta1.StateRun)
		})
		s.actTo(base+"/rollback", s.rollbackPlacement)
	}
}

// rollbackPlacement puts the placement of the run on the page back on the resource snapshot
// index posted, with the strategy of its latest run, and goes to the page of the run it creates.
func (s *Server) rollbackPlacement(r *http.Request, w client.Client) (string, string, error) {
	ctx, namespace := r.Context(), r.PathValue("namespace")
	index, err := strconv.Atoi(r.PostFormValue("index"))
	if err != nil {
		return "", "", fmt.Errorf("choose the resource snapshot index to roll back to (got %q)", r.PostFormValue("index"))
	}
	run, err := operate.Run(ctx, w, namespace, r.PathValue("name"))
	if err != nil {
		return "", "", err
	}
	msg, created, err := operate.RollbackPlacement(ctx, w, namespace, run.UpdateRunSpec().PlacementName, index, "")
	if err != nil {
		return "", "", err
	}
	return msg, runHref(namespace, created.GetName()), nil
}

// act serves the action do at path, then sends the viewer back to the rollout's page.
func (s *Server) act(pattern string, do func(*http.Request, client.Client) (string, error)) {
	s.actTo(pattern, func(r *http.Request, w client.Client) (string, string, error) {
		msg, err := do(r, w)
		return msg, "", err
	})
}

// actTo serves the action do at path, then sends the viewer to the page do names, or else back
// to the rollout's page. An action the API server forbids answers 403, with its words.
func (s *Server) actTo(pattern string, do func(*http.Request, client.Client) (msg, to string, err error)) {
	s.mux.HandleFunc("POST "+pattern, func(w http.ResponseWriter, r *http.Request) {
		writer, err := s.writer(r)
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		msg, to, err := do(r, writer)
		f := flash{Text: msg}
		if err != nil {
			s.opts.Log.Info("dashboard action refused", "path", r.URL.Path, "viewer", viewerName(r.Context()), "reason", err.Error())
			if apierrors.IsForbidden(err) {
				s.refuse(w, r, fmt.Errorf("permission denied: %w", err))
				return
			}
			f = flash{Error: true, Text: err.Error()}
		} else {
			s.opts.Log.Info("dashboard action", "path", r.URL.Path, "viewer", viewerName(r.Context()), "result", msg)
		}
		setFlash(w, f)
		if to == "" || err != nil {
			to = path.Dir(r.URL.Path)
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	})
}

// refuse shows an action the API server refused, with its status and words, and the way back.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	back := path.Dir(r.URL.Path)
	d := &pageData{Title: http.StatusText(status(err)), Crumbs: []crumb{{Text: "back", Href: back}, {Text: http.StatusText(status(err))}}, Body: err.Error()}
	s.render(w, r, status(err), "error", d)
}

// viewerName names the request's viewer in the log; empty when the dashboard does not authenticate.
func viewerName(ctx context.Context) string {
	if v := viewerOf(ctx); v != nil {
		return v.Name
	}
	return ""
}

// flash is what an action did, shown once on the page it returns to.
type flash struct {
	Error bool   `json:"error,omitempty"`
	Text  string `json:"text"`
}

const flashCookie = "stagecoach-flash"

// setFlash keeps f in a cookie for the next page, rather than in its URL where a link from
// elsewhere could write it.
func setFlash(w http.ResponseWriter, f flash) {
	if len(f.Text) > 1000 {
		f.Text = f.Text[:1000] + "…"
	}
	data, _ := json.Marshal(f)
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(data), Path: "/",
		MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// takeFlash reads the flash the last action left, and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	data, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil {
		return nil
	}
	var f flash
	if json.Unmarshal(data, &f) != nil || f.Text == "" {
		return nil
	}
	return &f
}
