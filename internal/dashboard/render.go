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
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/stagecoach-dev/stagecoach/internal/view"
)

//go:embed web
var web embed.FS

// staticFS holds static/, the style sheet and the script every page loads.
func staticFS() fs.FS {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // web is embedded: it is there
	}
	return sub
}

// pageData is what every page template gets: the layout's part, and the page's own in Body.
type pageData struct {
	Title  string
	Crumbs []crumb
	// Live is the URL of the page's stream of updates.
	Live  string
	Flash *flash
	// Denied says what the page cannot show for want of permission.
	Denied []string
	// Actions says whether the page offers actions.
	Actions bool
	// Viewer is who signed in, when the dashboard authenticates; SignOut offers to forget the
	// token the browser keeps.
	Viewer  string
	SignOut bool
	Body    any
}

// crumb is one step of the breadcrumb trail; the last has no link.
type crumb struct{ Text, Href string }

// pages are the parsed templates, one set per page.
type pages struct{ byName map[string]*template.Template }

func parsePages(now func() time.Time) (*pages, error) {
	funcs := template.FuncMap{
		"word":   word,
		"symbol": func(s view.State) string { return s.Symbol() },
		"class":  func(s view.State) string { return "s-" + strings.ToLower(string(s)) },
		"times":  func(s string) template.HTML { return withTimes(s, now()) },
		"when":   func(t time.Time) template.HTML { return timeTag(t, now()) },
		"total":  func(st view.Stage) int { return st.Total() },
		"done":   func(st view.Stage) int { return st.Counts[view.Succeeded] },
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(web, "web/templates/layout.html", "web/templates/parts.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range []string{"overview", "rollout", "cluster", "error", "signin"} {
		t, err := template.Must(base.Clone()).ParseFS(web, "web/templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		p.byName[name] = t
	}
	return p, nil
}

// execute renders the template named block of page.
func (p *pages) execute(page, block string, data *pageData) ([]byte, error) {
	var b bytes.Buffer
	if err := p.byName[page].ExecuteTemplate(&b, block, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// words name states as the tiles say them.
var words = map[view.State]string{
	view.Pending: "not started", view.Progressing: "updating", view.Waiting: "waiting", view.Suspended: "suspended",
	view.Failed: "failed", view.RollingBack: "rolling back", view.RolledBack: "rolled back", view.Succeeded: "done",
	view.Unreachable: "unreachable", view.Paused: "paused",
}

func word(s view.State) string {
	if w, ok := words[s]; ok {
		return w
	}
	return strings.ToLower(string(s))
}

// builder builds a page's data from its request.
type builder func(*http.Request) (*pageData, error)

// page serves the page at path with the template tmpl, and its stream of updates at /live+path.
func (s *Server) page(path, tmpl string, build builder) {
	s.mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		d, err := build(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d.Live = "/live" + r.URL.EscapedPath()
		d.Flash = takeFlash(w, r)
		s.render(w, r, http.StatusOK, tmpl, d)
	})
	s.mux.HandleFunc("GET /live"+path, func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, tmpl, build) })
}

// complete fills in the layout's part that every page shares.
func (s *Server) complete(ctx context.Context, d *pageData) error {
	denied, err := s.denied(ctx)
	if err != nil {
		return err
	}
	d.Denied = denied
	d.Actions = s.actsFor(ctx)
	if v := viewerOf(ctx); v != nil {
		d.Viewer, d.SignOut = v.Name, v.token != ""
	}
	return nil
}

// render writes the page tmpl of d with the status code.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, tmpl string, d *pageData) {
	err := s.complete(r.Context(), d)
	var out []byte
	if err == nil {
		out, err = s.pages.execute(tmpl, "layout", d)
	}
	if err != nil {
		if tmpl == "error" {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// fail shows err as a page, with the status it calls for.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	if code == http.StatusInternalServerError {
		s.opts.Log.Error(err, "serving a dashboard page", "path", r.URL.Path)
	}
	d := &pageData{Title: http.StatusText(code), Crumbs: []crumb{{Text: http.StatusText(code)}}, Body: err.Error()}
	s.render(w, r, code, "error", d)
}

// status is the HTTP status of a page that could not be built for err.
func status(err error) int {
	var denied *deniedError
	switch {
	case apierrors.IsNotFound(err), strings.HasSuffix(err.Error(), " not found"), strings.Contains(err.Error(), " not found in namespace "):
		return http.StatusNotFound
	case errors.As(err, &denied), apierrors.IsForbidden(err):
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

// stream sends the page's live part whenever the management cluster changes and the part with
// it, as server-sent events, until the viewer leaves.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, tmpl string, build builder) {
	changed, stop := s.src.changes.subscribe()
	defer stop()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var last []byte
	send := func() error {
		// A viewer whose token the API server no longer accepts sees no more.
		if s.auth != nil && !viewerOf(r.Context()).anonymous() {
			if _, err := s.auth.authenticate(r); err != nil {
				return err
			}
		}
		var part []byte
		d, err := build(r)
		if err == nil {
			err = s.complete(r.Context(), d)
		}
		if err == nil {
			part, err = s.pages.execute(tmpl, "live", d)
		}
		if err != nil {
			d := &pageData{Body: err.Error()}
			if part, err = s.pages.execute("error", "live", d); err != nil {
				return err
			}
		}
		if bytes.Equal(part, last) {
			return nil
		}
		last = part
		if _, err := w.Write(sse("update", part)); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := send(); err != nil {
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil || rc.Flush() != nil {
				return
			}
		case <-changed:
			// A change rarely comes alone (a status, then the next object's): let a burst settle
			// into one update.
			select {
			case <-r.Context().Done():
				return
			case <-time.After(settle):
			}
			if err := send(); err != nil {
				return
			}
		}
	}
}

// settle is how long an update waits for the changes that come with the first.
const settle = 150 * time.Millisecond

// sse frames data as a server-sent event of the type name.
func sse(name string, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "event: %s\n", name)
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.Bytes()
}

// rfc3339 finds the times the status model writes into its sentences.
var rfc3339 = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z`)

// withTimes escapes s for HTML and turns each time in it into a <time> that reads relative to
// now ("in 3m", "5m ago") and that the page's script keeps current.
func withTimes(s string, now time.Time) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range rfc3339.FindAllStringIndex(s, -1) {
		b.WriteString(template.HTMLEscapeString(s[last:m[0]]))
		if t, err := time.Parse(time.RFC3339, s[m[0]:m[1]]); err == nil {
			b.WriteString(string(timeTag(t, now)))
		} else {
			b.WriteString(template.HTMLEscapeString(s[m[0]:m[1]]))
		}
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String()) //nolint:gosec // escaped above, piece by piece
}

// timeTag is a <time> element reading t relative to now, with t itself in its title.
func timeTag(t, now time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	u := t.UTC()
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s" data-relative>%s</time>`, //nolint:gosec // only formatted times
		u.Format(time.RFC3339), u.Format("Mon 2 Jan 15:04:05 UTC"), relative(u, now)))
}

// relative says how far t is from now, as "in 3m (Mon 09:00 UTC)" or "5m ago"; the page's
// script says it the same way.
func relative(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	future := d > 0
	if !future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		s = fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	if future {
		return "in " + s + " (" + t.UTC().Format("Mon 15:04 UTC") + ")"
	}
	return s + " ago"
}
