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
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// now is a Thursday.
var now = time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)

// newTestServer serves the objects from a fake client, which also performs the actions.
func newTestServer(t *testing.T, denied []schema.GroupKind, objs ...client.Object) (*Server, client.Client) {
	t.Helper()
	s := scheme.New()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(objs...).Build()
	src := testSource(c, s)
	for _, gk := range denied {
		src.denied[gk] = "not shown: you may not list " + gk.Kind
	}
	srv, err := New(src, Options{Writer: c, TileLimit: 4, Log: logr.Discard(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// example is a promotion with a stage of each kind: done, waiting with a failing cluster and
// one updating in waves of one, and one larger than the tile limit.
func example() *view.Rollout {
	stage := func(name string, state view.State, wave int, waiting string, clusters ...view.Cluster) view.Stage {
		st := view.Stage{Name: name, State: state, Wave: wave, WaitingFor: waiting, Clusters: clusters, Counts: map[view.State]int{}}
		for _, c := range clusters {
			st.Counts[c.State]++
		}
		return st
	}
	dev := stage("dev", view.Succeeded, 0, "", view.Cluster{Name: "dev/dev-1", State: view.Succeeded, Runs: "kyverno/kyverno 3.6.2"})
	staging := stage("staging", view.Waiting, 1, "soak: next stage may start at 2026-11-26T11:03:00Z <b>",
		view.Cluster{Name: "staging/s-1", State: view.Failed, Runs: "kyverno/kyverno 3.6.2", Reason: "Resources: gate-open: ready is false"},
		view.Cluster{Name: "staging/s-2", State: view.Progressing, Reason: "deploying"},
		view.Cluster{Name: "staging/s-3", State: view.Pending},
		view.Cluster{Name: "staging/s-4", State: view.Pending})
	prod := stage("prod", view.Pending, 0, "",
		view.Cluster{Name: "prod/p-1", State: view.Unreachable, Reason: "unreachable: connection refused"},
		view.Cluster{Name: "prod/p-2", State: view.Pending})
	prod.Counts[view.Pending] += 4998 // listed: the first few; counted: all
	return &view.Rollout{Kind: "ClusterPromotion", Name: "kyverno", Version: "3f2a9c1d", State: view.Waiting,
		Message: "stage staging: 1 cluster failing", Stages: []view.Stage{dev, staging, prod}}
}

// TestRolloutGolden renders the example's page against testdata/rollout.golden.html
// (go test ./internal/dashboard -run TestRolloutGolden -update rewrites it).
func TestRolloutGolden(t *testing.T) {
	srv, _ := newTestServer(t, nil)
	body := srv.rolloutBody(example(), "/promotions/kyverno", sveltosClusterHref)
	body.Stages[1].Approve = true
	body.Suspend = true
	d := &pageData{Title: "ClusterPromotion kyverno", Crumbs: []crumb{{Text: "ClusterPromotion kyverno"}}, Live: "/live/promotions/kyverno", Body: body}
	if err := srv.complete(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	out, err := srv.pages.execute("rollout", "layout", d)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "rollout.golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (-update creates it)", err)
	}
	if string(out) != string(want) {
		t.Errorf("the page differs from %s (-update rewrites it):\n%s", golden, out)
	}
	for _, s := range []string{
		`Updating, 1 at a time`, `Not started: 2 waves of up to 1`, `The 2 clusters that need attention first`,
		`… and 4998 more, counted above`, `soak: next stage may start at <time datetime="2026-11-26T11:03:00Z"`,
		`in 3m (Thu 11:03 UTC)`, `&lt;b&gt;`, `data-cluster="staging/s-2" data-state="Progressing"`, `href="/clusters/staging/s-1"`,
		`id="approve-staging"`, `aria-label="1 updating, 2 not started, 1 failed"`,
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}

// TestLiveStream: the stream sends the page's live part at once, then again after a change,
// and only the live part.
func TestLiveStream(t *testing.T) {
	srv, _ := newTestServer(t, nil)
	var mu sync.Mutex
	ro := example()
	srv.page("/test", "rollout", func(*http.Request) (*pageData, error) {
		mu.Lock()
		defer mu.Unlock()
		return &pageData{Body: srv.rolloutBody(ro, "/test", sveltosClusterHref)}, nil
	})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/live/test", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := bufio.NewReader(resp.Body)
	first := readEvent(t, events)
	if !strings.Contains(first, `data-stage="staging" data-state="Waiting"`) || strings.Contains(first, "<html") {
		t.Fatalf("first event:\n%s", first)
	}
	mu.Lock()
	ro.Stages[1].State = view.Succeeded
	mu.Unlock()
	srv.src.changes.notify()
	if next := readEvent(t, events); !strings.Contains(next, `data-stage="staging" data-state="Succeeded"`) {
		t.Fatalf("event after the change:\n%s", next)
	}
}

// readEvent reads one server-sent event and returns its data, lines joined as EventSource does.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var data []string
	name := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && name != "":
			if name != "update" {
				t.Fatalf("event %q", name)
			}
			return strings.Join(data, "\n")
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
}

func promotion() *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	p.Spec.Stages = []configv1beta1.Stage{{Name: "dev", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}, {Name: "prod"}}
	p.Status.CurrentStageName = "dev"
	return p
}

// TestActions: an action from another site is refused; from the page it acts, goes back to the
// rollout and says what it did there, once.
func TestActions(t *testing.T) {
	srv, c := newTestServer(t, nil, promotion())
	ts := httptest.NewServer(srv)
	defer ts.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(site string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/promotions/web/suspend", nil)
		req.Header.Set("Sec-Fetch-Site", site)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	suspended := func() bool {
		p := &configv1beta1.ClusterPromotion{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, p); err != nil {
			t.Fatal(err)
		}
		return p.Spec.Suspend
	}
	if resp := post("cross-site"); resp.StatusCode != http.StatusForbidden || suspended() {
		t.Fatalf("a cross-site request: %s, suspended %t", resp.Status, suspended())
	}
	resp := post("same-origin")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/promotions/web" || !suspended() {
		t.Fatalf("suspend: %s to %q, suspended %t", resp.Status, resp.Header.Get("Location"), suspended())
	}
	page := func(cookies []*http.Cookie) (string, []*http.Cookie) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+"/promotions/web", nil)
		for _, ck := range cookies {
			req.AddCookie(ck)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /promotions/web: %s\n%s", resp.Status, b.String())
		}
		return b.String(), resp.Cookies()
	}
	html, cleared := page(resp.Cookies())
	if !strings.Contains(html, `role="status">suspended ClusterPromotion web</p>`) || !strings.Contains(html, `id="action-resume"`) {
		t.Errorf("the page after the action:\n%s", html)
	}
	if len(cleared) != 1 || cleared[0].MaxAge >= 0 {
		t.Errorf("the flash cookie is not cleared: %+v", cleared)
	}
	if html, _ := page(nil); strings.Contains(html, "suspended ClusterPromotion web") {
		t.Error("the flash shows twice")
	}
}

// TestReadOnly: without a writer the pages offer no action and the dashboard takes none.
func TestReadOnly(t *testing.T) {
	s := scheme.New()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(promotion()).Build()
	srv, err := New(testSource(c, s), Options{Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/promotions/web/suspend", nil))
	if rec.Code == http.StatusSeeOther {
		t.Errorf("a read-only dashboard acted: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/promotions/web", nil))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "<form") || !strings.Contains(rec.Body.String(), "This dashboard only reads") {
		t.Errorf("read-only page (%d):\n%s", rec.Code, rec.Body.String())
	}
}

// TestOverviewAndDenied: the overview lists what the viewer may list and says what it may not;
// a page of a kind it may not read says so with 403; a missing rollout is a 404.
func TestOverviewAndDenied(t *testing.T) {
	srv, _ := newTestServer(t, []schema.GroupKind{{Group: "placement.kubernetes-fleet.io", Kind: "ClusterStagedUpdateRun"}}, promotion())
	for path, want := range map[string]struct {
		code int
		text string
	}{
		"/":                     {http.StatusOK, `<a href="/promotions/web">web</a>`},
		"/runs/nightly":         {http.StatusForbidden, "not shown: you may not list ClusterStagedUpdateRun"},
		"/promotions/nope":      {http.StatusNotFound, "ClusterPromotion nope not found"},
		"/clusters/prod/prod-1": {http.StatusNotFound, "SveltosCluster prod-1 not found in namespace prod"},
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want.code || !strings.Contains(rec.Body.String(), want.text) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", path, rec.Code, want.code, want.text, rec.Body.String())
		}
	}
}

// TestLoopbackOnly: bound to a loopback address, the dashboard answers only loopback names.
func TestLoopbackOnly(t *testing.T) {
	h := loopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for host, code := range map[string]int{
		"localhost:8090": http.StatusNoContent, "127.0.0.1:8090": http.StatusNoContent, "[::1]:8090": http.StatusNoContent,
		"evil.example:8090": http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest,
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != code {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, code)
		}
	}
}

func TestRelative(t *testing.T) {
	for d, want := range map[time.Duration]string{
		3 * time.Minute:                "in 3m (Thu 11:03 UTC)",
		-90 * time.Second:              "1m ago",
		-5 * time.Second:               "5s ago",
		4*24*time.Hour + 9*time.Hour:   "in 4d (Mon 20:00 UTC)",
		-(2*time.Hour + 5*time.Minute): "2h05m ago",
		0:                              "0s ago",
	} {
		if got := relative(now.Add(d), now); got != want {
			t.Errorf("relative(%v) = %q, want %q", d, got, want)
		}
	}
}

// BenchmarkLargeStage renders the page of a rollout with a stage of 5,000 clusters, as the
// dashboard does with its default tile limit: how long, and how much the browser receives.
func BenchmarkLargeStage(b *testing.B) {
	s := scheme.New()
	srv, err := New(&Source{reader: fake.NewClientBuilder().WithScheme(s).Build(), scheme: s}, Options{Log: logr.Discard()})
	if err != nil {
		b.Fatal(err)
	}
	states := []view.State{view.Succeeded, view.Succeeded, view.Succeeded, view.Progressing, view.Pending, view.Failed}
	st := view.Stage{Name: "prod", State: view.Progressing, Wave: 250, Counts: map[view.State]int{}}
	for i := range 5000 {
		c := view.Cluster{Name: fmt.Sprintf("prod/cluster-%04d", i), State: states[i%len(states)], Runs: "kyverno/kyverno 3.6.2"}
		st.Counts[c.State]++
		if len(st.Clusters) < DefaultTileLimit {
			st.Clusters = append(st.Clusters, c)
		}
	}
	ro := &view.Rollout{Kind: "ClusterPromotion", Name: "kyverno", State: view.Progressing, Stages: []view.Stage{st}}
	var size int
	for b.Loop() {
		d := &pageData{Title: "ClusterPromotion kyverno", Body: srv.rolloutBody(ro, "/promotions/kyverno", sveltosClusterHref)}
		_ = srv.complete(b.Context(), d)
		out, err := srv.pages.execute("rollout", "layout", d)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size)/1024, "KiB/page")
}

// TestRollbackActions: a promotion past its last known good version offers to go back to it; an
// update run offers its placement's earlier indices that a run rolled out to the end, and
// rolling back goes to the page of the run it creates.
func TestRollbackActions(t *testing.T) {
	p := promotion()
	p.Status.ProfileSpecHash = []byte{0x22, 0x22, 0x22, 0x22}
	p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte{0x11, 0x11, 0x11, 0x11}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "app"}}
	objs := []client.Object{p, crp}
	for i := range 3 {
		snap := &placementv1beta1.ClusterResourceSnapshot{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%d-snapshot", i),
			Labels:      map[string]string{placementv1beta1.PlacementTrackingLabel: "app", placementv1beta1.ResourceIndexLabel: fmt.Sprint(i)},
			Annotations: map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "abc"}}}
		run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", i),
			CreationTimestamp: metav1.NewTime(now.Add(time.Duration(i) * time.Minute))}}
		run.Spec = placementv1beta1.UpdateRunSpec{PlacementName: "app", ResourceSnapshotIndex: fmt.Sprint(i), StagedUpdateStrategyName: "staged"}
		if i < 2 { // the last run is under way
			run.Status.Conditions = []metav1.Condition{{Type: string(placementv1beta1.StagedUpdateRunConditionSucceeded),
				Status: metav1.ConditionTrue, Reason: "Succeeded", LastTransitionTime: metav1.NewTime(now)}}
		}
		objs = append(objs, snap, run)
	}
	srv, c := newTestServer(t, nil, objs...)
	get := func(path string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body.String())
		}
		return rec.Body.String()
	}
	post := func(path string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}

	if html := get("/promotions/web"); !strings.Contains(html, `<form method="post" action="/promotions/web/rollback"><button id="action-rollback" type="submit">Roll back to version 11111111</button></form>`) {
		t.Errorf("the promotion's page does not offer its rollback:\n%s", html)
	}
	rec := post("/promotions/web/rollback", nil)
	got := &configv1beta1.ClusterPromotion{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/promotions/web" || got.Annotations[configv1beta1.RollbackAnnotation] != "22222222" {
		t.Errorf("rollback: %d to %q, annotations %v", rec.Code, rec.Header().Get("Location"), got.Annotations)
	}

	// Run app-2 rolls out index 2: indices 1 and 0 went through before, newest first.
	html := get("/runs/app-2")
	if !strings.Contains(html, `<select id="rollback-index" name="index"><option value="1">index 1</option><option value="0">index 0</option></select>`) ||
		!strings.Contains(html, "Roll ClusterResourcePlacement app back to resource snapshot") {
		t.Errorf("the run's page does not offer the indices to roll back to:\n%s", html)
	}
	if html := get("/runs/app-0"); strings.Contains(html, `id="action-rollback"`) {
		t.Errorf("the first run's page offers a rollback:\n%s", html)
	}
	rec = post("/runs/app-2/rollback", url.Values{"index": {"0"}})
	to := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(to, "/runs/app-rollback-") {
		t.Fatalf("rollback placement: %d to %q", rec.Code, to)
	}
	created := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: strings.TrimPrefix(to, "/runs/")}, created); err != nil ||
		created.Spec.ResourceSnapshotIndex != "0" || created.Spec.StagedUpdateStrategyName != "staged" {
		t.Errorf("the run created: %+v (%v)", created.Spec, err)
	}
	rec = post("/runs/app-2/rollback", url.Values{"index": {"7"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/runs/app-2" {
		t.Errorf("a refused rollback goes to %q (%d), want back to the run", rec.Header().Get("Location"), rec.Code)
	}
	req := httptest.NewRequest(http.MethodGet, "/runs/app-2", nil)
	for _, ck := range rec.Result().Cookies() {
		req.AddCookie(ck)
	}
	page := httptest.NewRecorder()
	srv.ServeHTTP(page, req)
	if !strings.Contains(page.Body.String(), "ClusterResourcePlacement app has no resource snapshot index 7; it has 0, 1, 2") {
		t.Errorf("the page after a refused rollback:\n%s", page.Body.String())
	}
}
