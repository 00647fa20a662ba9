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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Auth makes the dashboard serve only the viewers the API server knows: each request carries a
// Kubernetes bearer token (an Authorization header, or the cookie the sign-in page sets), which
// a TokenReview checks. What a viewer sees is then decided by SubjectAccessReviews as that
// viewer, and the actions are performed with the viewer's own token.
type Auth struct {
	// Reviewer creates the TokenReviews and SubjectAccessReviews, with the identity that serves
	// the dashboard.
	Reviewer client.Client
	// Config is the API server the actions go to, as the viewer: its host and TLS settings. Its
	// own credentials are never used for them.
	Config *rest.Config
	// AnonymousRead serves a request without credentials as system:anonymous: what that user may
	// list, by SubjectAccessReview, and never an action.
	AnonymousRead bool
	// Proxy, when set, also serves the users an authenticating proxy vouches for.
	Proxy *Proxy
}

// Viewer is whom a request comes from, as the API server's TokenReview says.
type Viewer struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
	// token is the viewer's bearer token, which the actions are performed with. It is never
	// logged or shown.
	token string
	// proxied says an authenticating proxy vouches for the viewer; anon, that no one does.
	proxied, anon bool
	// key names the viewer's identity in the cache of its permissions.
	key string
}

const anonymousUser = "system:anonymous"

func (v *Viewer) anonymous() bool { return v.anon }

// tokenCookie keeps the token a viewer signed in with, for the pages and their streams: a
// browser cannot add a header to a link or an EventSource.
const tokenCookie = "stagecoach-token"

// Cache bounds: a viewer whose token or RBAC changes sees it within these times.
const (
	reviewTTL    = 10 * time.Second
	refusedTTL   = 2 * time.Second
	accessTTL    = 10 * time.Second
	maxReviews   = 1024
	maxDecisions = 16384
)

// authError is a request the dashboard does not serve for want of credentials it accepts.
type authError struct{ msg string }

func (e *authError) Error() string { return e.msg }

var errNoCredentials = &authError{"this dashboard serves only the users the Kubernetes API server knows: " +
	"sign in with a bearer token (kubectl create token SERVICEACCOUNT), or send it as Authorization: Bearer TOKEN"}

// authenticator checks viewers and their permissions, remembering the answers briefly.
type authenticator struct {
	Auth
	reviews   *utilcache.LRUExpireCache // sha256 of a token: *Viewer or *authError
	decisions *utilcache.LRUExpireCache // viewer, verb, resource, namespace: bool
}

func newAuthenticator(a Auth) *authenticator {
	return &authenticator{Auth: a, reviews: utilcache.NewLRUExpireCache(maxReviews), decisions: utilcache.NewLRUExpireCache(maxDecisions)}
}

// authenticate says who r comes from.
func (a *authenticator) authenticate(r *http.Request) (*Viewer, error) {
	if a.Proxy != nil {
		if v, err := a.Proxy.proxied(r); v != nil || err != nil {
			return v, err
		}
	}
	token := bearer(r)
	if token == "" {
		if a.AnonymousRead {
			v := newViewer(anonymousUser, "", []string{"system:unauthenticated"}, nil, "")
			v.anon = true
			return v, nil
		}
		return nil, errNoCredentials
	}
	return a.review(r.Context(), token)
}

// bearer is the token of r's Authorization header, or else of its cookie.
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, _ := strings.Cut(h, " ")
		if strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return ""
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// review asks the API server whom token belongs to.
func (a *authenticator) review(ctx context.Context, token string) (*Viewer, error) {
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	if got, ok := a.reviews.Get(key); ok {
		if v, ok := got.(*Viewer); ok {
			return v, nil
		}
		return nil, got.(*authError)
	}
	tr := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
	if err := a.Reviewer.Create(ctx, tr); err != nil {
		return nil, fmt.Errorf("the dashboard could not check the token with the API server: %w", err)
	}
	if !tr.Status.Authenticated {
		msg := "the Kubernetes API server does not accept this token"
		if tr.Status.Error != "" {
			msg += ": " + tr.Status.Error
		}
		err := &authError{msg}
		a.reviews.Add(key, err, refusedTTL)
		return nil, err
	}
	u := tr.Status.User
	extra := map[string][]string{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	v := newViewer(u.Username, u.UID, u.Groups, extra, token)
	a.reviews.Add(key, v, reviewTTL)
	return v, nil
}

func newViewer(name, uid string, groups []string, extra map[string][]string, token string) *Viewer {
	v := &Viewer{Name: name, UID: uid, Groups: groups, Extra: extra, token: token}
	id, _ := json.Marshal([]any{name, uid, groups, extra})
	sum := sha256.Sum256(id)
	v.key = hex.EncodeToString(sum[:])
	return v
}

// actAs is a client that acts as v, with v's own token: the API server's RBAC decides what it
// may do, and the dashboard needs no right to impersonate anyone. A viewer a proxy vouches for
// has no token of its own: it is impersonated.
func (a *authenticator) actAs(v *Viewer) (client.Client, error) {
	opts := client.Options{Scheme: a.Reviewer.Scheme(), Mapper: a.Reviewer.RESTMapper()}
	switch {
	case v.anonymous():
		return nil, &authError{"sign in to act: " + errNoCredentials.msg}
	case v.proxied:
		return impersonate(a.Config, v, opts)
	}
	cfg := rest.AnonymousClientConfig(a.Config)
	cfg.BearerToken = v.token
	return client.New(cfg, opts)
}

type viewerKey struct{}

func withViewer(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// viewerOf is whom the request of ctx comes from; nil when the dashboard does not authenticate.
func viewerOf(ctx context.Context) *Viewer {
	v, _ := ctx.Value(viewerKey{}).(*Viewer)
	return v
}

// public are the paths served without credentials: what the sign-in page needs.
func public(path string) bool {
	return strings.HasPrefix(path, "/static/") || path == "/healthz" || path == "/login" || path == "/logout"
}

// authenticated serves next to the viewers the API server knows, and asks the others to sign in.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		v, err := s.auth.authenticate(r)
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(withViewer(r.Context(), v)))
	})
}

// unauthorized answers a request whose credentials are missing or refused: with the sign-in page
// for a person, and with the words alone for a stream.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	var ae *authError
	if !errors.As(err, &ae) {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="stagecoach-dashboard"`)
	if strings.HasPrefix(r.URL.Path, "/live/") {
		http.Error(w, ae.msg, http.StatusUnauthorized)
		return
	}
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet {
		next = path.Dir(r.URL.Path) // an action's rollout
	}
	s.signInPage(w, http.StatusUnauthorized, next, ae.msg)
}

// signInBody is the sign-in page's.
type signInBody struct{ Next, Message string }

func (s *Server) signInPage(w http.ResponseWriter, code int, next, msg string) {
	d := &pageData{Title: "Sign in", Crumbs: []crumb{{Text: "Sign in"}}, Body: &signInBody{Next: next, Message: msg}}
	out, err := s.pages.execute("signin", "layout", d)
	if err != nil {
		http.Error(w, msg, code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// signIn checks the token posted and keeps it in a cookie only the dashboard reads: scripts may
// not (HttpOnly), other sites' requests do not carry it (SameSite), and it ends with the
// browser's session.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.PostFormValue("next"))
	token := strings.TrimSpace(r.PostFormValue("token"))
	if token == "" {
		s.signInPage(w, http.StatusUnauthorized, next, "paste a bearer token")
		return
	}
	if _, err := s.auth.review(r.Context(), token); err != nil {
		var ae *authError
		if !errors.As(err, &ae) {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="stagecoach-dashboard"`)
		s.signInPage(w, http.StatusUnauthorized, next, ae.msg)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut forgets the token.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// localPath is p if it is a path of this dashboard, else "/": a sign-in never leads elsewhere.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return "/"
	}
	return p
}
