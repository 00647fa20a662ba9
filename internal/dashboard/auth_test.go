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
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// testSource is a Source over c that watches every kind the dashboard shows.
func testSource(c client.Reader, s *runtime.Scheme) *Source {
	src := &Source{reader: c, scheme: s, denied: map[schema.GroupKind]string{}, kinds: map[schema.GroupKind]kindInfo{}}
	for gk, k := range map[string]kindInfo{
		"ClusterPromotion.config.projectsveltos.io":            {schema.GroupResource{Group: "config.projectsveltos.io", Resource: "clusterpromotions"}, false},
		"ClusterProfile.config.projectsveltos.io":              {schema.GroupResource{Group: "config.projectsveltos.io", Resource: "clusterprofiles"}, false},
		"Profile.config.projectsveltos.io":                     {schema.GroupResource{Group: "config.projectsveltos.io", Resource: "profiles"}, true},
		"ClusterSummary.config.projectsveltos.io":              {schema.GroupResource{Group: "config.projectsveltos.io", Resource: "clustersummaries"}, true},
		"SveltosCluster.lib.projectsveltos.io":                 {schema.GroupResource{Group: "lib.projectsveltos.io", Resource: "sveltosclusters"}, true},
		"ClusterStagedUpdateRun.placement.kubernetes-fleet.io": {schema.GroupResource{Group: "placement.kubernetes-fleet.io", Resource: "clusterstagedupdateruns"}, false},
		"StagedUpdateRun.placement.kubernetes-fleet.io":        {schema.GroupResource{Group: "placement.kubernetes-fleet.io", Resource: "stagedupdateruns"}, true},
		"Event.events.k8s.io":                                  {schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, true},
	} {
		src.kinds[schema.ParseGroupKind(gk)] = k
	}
	return src
}

// rule lets a user verb a resource, in a namespace or ("") in every namespace.
type rule struct{ user, verb, resource, namespace string }

// fakeReviewer answers TokenReviews from tokens and SubjectAccessReviews from rules, as an API
// server would, and counts them.
type fakeReviewer struct {
	tokens          map[string]string // token: user
	rules           []rule
	reviews, checks atomic.Int32
}

func (f *fakeReviewer) client(objs ...client.Object) client.WithWatch {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(configv1beta1.GroupVersion.WithKind("ClusterPromotion"), meta.RESTScopeRoot)
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithRESTMapper(mapper).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			switch o := obj.(type) {
			case *authenticationv1.TokenReview:
				f.reviews.Add(1)
				if user, ok := f.tokens[o.Spec.Token]; ok {
					o.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: user, Groups: []string{"system:authenticated"}}}
				} else {
					o.Status.Error = "invalid bearer token"
				}
				return nil
			case *authorizationv1.SubjectAccessReview:
				f.checks.Add(1)
				a := o.Spec.ResourceAttributes
				for _, r := range f.rules {
					if r.user == o.Spec.User && r.verb == a.Verb && r.resource == a.Resource && (r.namespace == "" || r.namespace == a.Namespace) {
						o.Status.Allowed = true
					}
				}
				return nil
			}
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
}

// newAuthServer serves objs to the viewers f knows.
func newAuthServer(t *testing.T, f *fakeReviewer, anonymous bool, objs ...client.Object) (*httptest.Server, client.Client) {
	t.Helper()
	c := f.client(objs...)
	srv, err := New(testSource(c, c.Scheme()), Options{Log: logr.Discard(), Actions: true,
		Auth: &Auth{Reviewer: c, Config: &rest.Config{Host: "https://127.0.0.1:1"}, AnonymousRead: anonymous}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, c
}

// do sends a request with the token (none when empty) and returns the response and its body.
func do(t *testing.T, method, target, token string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestWithoutCredentials: a request without a token, or with one the API server refuses, gets
// 401 and the sign-in page (a stream, the words alone), and no action is taken; the style sheet
// and the health check need none.
func TestWithoutCredentials(t *testing.T) {
	t.Parallel()
	f := &fakeReviewer{tokens: map[string]string{"good": "alice"}}
	ts, c := newAuthServer(t, f, false, promotion())
	for _, tc := range []struct{ method, path, token, want string }{
		{http.MethodGet, "/", "", `<form method="post" action="/login"`},
		{http.MethodGet, "/promotions/web", "", `name="next" value="/promotions/web"`},
		{http.MethodGet, "/live/promotions/web", "", "this dashboard serves only the users the Kubernetes API server knows"},
		{http.MethodGet, "/", "forged", "the Kubernetes API server does not accept this token: invalid bearer token"},
		{http.MethodPost, "/promotions/web/approve", "", `name="next" value="/promotions/web"`},
		{http.MethodPost, "/promotions/web/suspend", "forged", "does not accept this token"},
	} {
		resp, body := do(t, tc.method, ts.URL+tc.path, tc.token, url.Values{"stage": {"dev"}})
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, tc.want) || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s %s with token %q: %s, want 401 with %q:\n%s", tc.method, tc.path, tc.token, resp.Status, tc.want, body)
		}
		if strings.Contains(body, "ClusterPromotion web") {
			t.Errorf("%s %s without credentials shows the promotion", tc.method, tc.path)
		}
	}
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, p); err != nil || p.Spec.Suspend || p.Spec.Stages[0].Trigger.Manual.Approved != nil {
		t.Errorf("an unauthenticated action changed the promotion (%v): %+v", err, p.Spec)
	}
	for _, path := range []string{"/static/style.css", "/healthz"} {
		if resp, _ := do(t, http.MethodGet, ts.URL+path, "", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, want 200", path, resp.Status)
		}
	}
}

// TestViewerSees: a viewer sees what it may list, in every namespace or in some, and is told what
// it may not; a page of a kind it may not get is a 403; its token is checked once while cached.
func TestViewerSees(t *testing.T) {
	t.Parallel()
	f := &fakeReviewer{tokens: map[string]string{"alice-token": "alice"}, rules: []rule{
		{"alice", "list", "clusterpromotions", ""}, {"alice", "get", "clusterpromotions", ""},
		{"alice", "list", "clusterprofiles", ""},
		{"alice", "list", "stagedupdateruns", "team-a"},
	}}
	run := func(ns string) *placementv1beta1.StagedUpdateRun {
		return &placementv1beta1.StagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns}}
	}
	ts, _ := newAuthServer(t, f, false, promotion(), run("team-a"), run("team-b"))
	resp, body := do(t, http.MethodGet, ts.URL+"/", "alice-token", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / as alice: %s\n%s", resp.Status, body)
	}
	for _, want := range []string{`<a href="/promotions/web">web</a>`, `href="/namespaces/team-a/runs/nightly"`,
		`Signed in as <strong id="viewer">alice</strong>`,
		"not shown: alice may not list clusterstagedupdateruns.placement.kubernetes-fleet.io",
		"shown only in the namespaces where alice may list them: events.events.k8s.io"} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "team-b") {
		t.Errorf("the overview shows a run of a namespace alice may not list:\n%s", body)
	}
	resp, body = do(t, http.MethodGet, ts.URL+"/namespaces/team-b/runs/nightly", "alice-token", nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "not shown: alice may not get stagedupdateruns.placement.kubernetes-fleet.io in namespace team-b") {
		t.Errorf("another namespace's run: %s\n%s", resp.Status, body)
	}
	if n := f.reviews.Load(); n != 1 {
		t.Errorf("%d TokenReviews for one token within %v, want 1", n, reviewTTL)
	}
}

// TestSignIn: a token pasted in the sign-in page that the API server accepts is kept in a cookie
// scripts cannot read and other sites' requests do not carry, and the pages then serve its
// viewer; a refused one gets 401; the page signed in to is always this dashboard's.
func TestSignIn(t *testing.T) {
	t.Parallel()
	f := &fakeReviewer{tokens: map[string]string{"alice-token": "alice"}, rules: []rule{{"alice", "get", "clusterpromotions", ""}, {"alice", "get", "clusterprofiles", ""}}}
	ts, _ := newAuthServer(t, f, false, promotion())
	resp, body := do(t, http.MethodPost, ts.URL+"/login", "", url.Values{"token": {"forged"}, "next": {"/promotions/web"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "does not accept this token") || len(resp.Cookies()) != 0 {
		t.Errorf("a refused sign-in: %s, cookies %v\n%s", resp.Status, resp.Cookies(), body)
	}
	resp, _ = do(t, http.MethodPost, ts.URL+"/login", "", url.Values{"token": {"alice-token"}, "next": {"//elsewhere.example/"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("a sign-in that names another site to go to: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	resp, _ = do(t, http.MethodPost, ts.URL+"/login", "", url.Values{"token": {"alice-token"}, "next": {"/promotions/web"}})
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/promotions/web" || len(cookies) != 1 {
		t.Fatalf("sign-in: %s to %q, cookies %v", resp.Status, resp.Header.Get("Location"), cookies)
	}
	if ck := cookies[0]; !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.MaxAge != 0 || !ck.Expires.IsZero() {
		t.Errorf("the token's cookie %+v: want HttpOnly, SameSite=Strict, for the session only", ck)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+"/promotions/web", nil)
	req.AddCookie(cookies[0])
	got, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	_ = got.Body.Close()
	if got.StatusCode != http.StatusOK || !strings.Contains(string(b), "alice") || !strings.Contains(string(b), `id="signout"`) {
		t.Errorf("the page with the cookie: %s\n%s", got.Status, b)
	}
}

// TestAnonymousRead: with anonymous reading on, a request without a token sees what
// system:anonymous may list and is offered no action; an action without a token is a 401.
func TestAnonymousRead(t *testing.T) {
	t.Parallel()
	f := &fakeReviewer{rules: []rule{{anonymousUser, "list", "clusterpromotions", ""}}}
	ts, c := newAuthServer(t, f, true, promotion())
	resp, body := do(t, http.MethodGet, ts.URL+"/", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<a href="/promotions/web">web</a>`) || strings.Contains(body, "signout") {
		t.Errorf("the overview, anonymously: %s\n%s", resp.Status, body)
	}
	resp, body = do(t, http.MethodGet, ts.URL+"/promotions/web", "", nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "system:anonymous may not get clusterpromotions") {
		t.Errorf("a promotion system:anonymous may not get: %s\n%s", resp.Status, body)
	}
	resp, _ = do(t, http.MethodPost, ts.URL+"/promotions/web/suspend", "", url.Values{})
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, p); resp.StatusCode != http.StatusUnauthorized || err != nil || p.Spec.Suspend {
		t.Errorf("an anonymous suspend: %s, suspended %t (%v)", resp.Status, p.Spec.Suspend, err)
	}
}

// TestRefusesUnauthenticatedElsewhere: a dashboard that does not authenticate will not serve at
// an address other machines reach.
func TestRefusesUnauthenticatedElsewhere(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, nil)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := ServeListener(ctx, ln, srv, logr.Discard()); err == nil || !strings.Contains(err.Error(), "without authentication") {
		t.Errorf("serving at %s without authentication: %v", ln.Addr(), err)
	}
}
