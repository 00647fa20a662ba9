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

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/dashboard"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestDashboard follows a promotion in the dashboard, in headless Chromium, as a person would:
// the stages in order, dev waiting for approval and approved from the page, prod failing its
// health check while qa waits its turn in the wave, then both done once prod's gate opens,
// with the time from the stage's change in the API server to the page; then a cluster's page,
// the rollout's Events, and a second version rolled back from the page. Screenshots go to $STAGECOACH_ARTIFACTS (default: a temporary
// directory), light and dark.
func TestDashboard(t *testing.T) {
	browser := chromium(t)
	c := testenv.Client(t)
	const ns = "dash"
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dash-v1", Namespace: "default"}, Data: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: dash\ndata:\n  value: v1\n"}}
	if err := c.Create(t.Context(), content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), content) })
	// Each cluster has a gate the health check reads; prod's is closed.
	for _, cluster := range []string{"dev", "prod", "qa"} {
		kube := managed(t, cluster)
		if _, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
		gate := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gate", Namespace: ns, Labels: map[string]string{"role": "gate"}},
			Data: map[string]string{"ready": map[bool]string{true: "no", false: "yes"}[cluster == "prod"]}}
		if _, err := kube.CoreV1().ConfigMaps(ns).Create(t.Context(), gate, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "dash"}}
	one := intstr.FromInt32(1)
	p.Spec.ProfileSpec.MaxUpdate = &one
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: content.Name}}
	p.Spec.ProfileSpec.ValidateHealths = []libv1beta1.ValidateHealth{{
		Name: "gate-open", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: ns,
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: "gate"}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}}
	dev := configv1beta1.Stage{Name: "dev", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	dev.ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	rest := configv1beta1.Stage{Name: "rest"}
	rest.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "qa"}}}
	p.Spec.Stages = []configv1beta1.Stage{dev, rest}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })

	base := serveDashboard(t, testenv.Fleet.Management.Config, c)
	ctx := tab(t, browser)
	artifacts := artifactDir(t)
	page := func(path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path)); err != nil {
			t.Fatal(err)
		}
	}
	until := func(what, predicate string) {
		t.Helper()
		untilPage(t, ctx, what, predicate)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(artifacts, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const tileState = `(name) => document.querySelector('[data-cluster="' + name + '"]')?.dataset.state`

	// The overview lists the promotion; its page shows the stages in order, dev waiting.
	page("/")
	until("the overview lists the promotion", `document.querySelector('[data-rollout="ClusterPromotion/dash"] a')?.getAttribute("href") === "/promotions/dash"`)
	page("/promotions/dash")
	until("dev waits for its approval", `document.querySelector('[data-stage="dev"] [data-waiting]')?.textContent.includes("Awaiting Manual Approval") &&
		document.getElementById("conn")?.textContent === "live"`)
	stages, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".pipeline > .stage")].map(s => s.dataset.stage)`))
	if err != nil || !slices.Equal(stages, []string{"dev", "rest"}) {
		t.Errorf("stages %v (%v), want dev then rest", stages, err)
	}
	until("dev/dev is done", fmt.Sprintf(`(%s)("dev/dev") === "Succeeded"`, tileState))
	shot("dashboard-approval.png")

	// Approved from the page, with the viewer's credentials.
	clickPage(t, ctx, "approve-dev")
	until("the page says what the approval did", `document.querySelector(".flash")?.textContent === "approved stage dev of ClusterPromotion dash"`)
	until("prod fails its health check while qa waits in the wave", fmt.Sprintf(
		`(%[1]s)("prod/prod") === "Failed" && (%[1]s)("qa/qa") === "Progressing"`, tileState))
	shot("dashboard-wave.png")

	// Open prod's gate: the stage goes through, and the page shows it about as soon as the API
	// server has it.
	changed := stageChange(t, "dash", "rest", view.Succeeded)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		window.seen = {};
		const live = document.getElementById("live");
		new MutationObserver(() => {
			const st = document.querySelector('[data-stage="rest"]')?.dataset.state;
			if (st && !window.seen[st]) window.seen[st] = Date.now();
		}).observe(live, {childList: true, subtree: true});
		return true;
	})()`)); err != nil {
		t.Fatal(err)
	}
	gate := `{"data":{"ready":"yes"}}`
	if _, err := managed(t, "prod").CoreV1().ConfigMaps(ns).Patch(t.Context(), "gate", "application/merge-patch+json", []byte(gate), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	until("qa turns from updating to done", fmt.Sprintf(`(%[1]s)("prod/prod") === "Succeeded" && (%[1]s)("qa/qa") === "Succeeded" && window.seen.Succeeded > 0`, tileState))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.seen.Succeeded`))
	if err != nil {
		t.Fatal(err)
	}
	lag := time.UnixMilli(int64(shown)).Sub(<-changed)
	t.Logf("stage rest Succeeded in the API server, then on the page %v later", lag)
	if lag > 3*time.Second {
		t.Errorf("the page showed the stage change %v after the API server had it", lag)
	}
	shot("dashboard-done.png")
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	shot("dashboard-done-dark.png")

	// A cluster's page: what it runs, from which rollout, and the health check's word.
	page("/clusters/prod/prod")
	until("prod's page shows the profile and its check", `document.body.innerText.includes("ClusterProfile dash-rest") &&
		document.body.innerText.includes("gate-open") && document.querySelector('a[href="/promotions/dash"]') !== null`)
	shot("dashboard-cluster.png")

	// The rollout's Events, newest first.
	page("/promotions/dash")
	until("the timeline has the promotion's Events", `document.querySelectorAll(".timeline li").length > 0`)

	// A second version reaches dev and waits there for its approval; rolled back from the page,
	// dev runs the first again.
	v2 := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dash-v2", Namespace: "default"},
		Data: map[string]string{"cm.yaml": strings.ReplaceAll(content.Data["cm.yaml"], "value: v1", "value: v2")}}
	if err := c.Create(t.Context(), v2); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), v2) })
	next := []byte(`[{"op": "replace", "path": "/spec/profileSpec/policyRefs/0/name", "value": "dash-v2"}]`)
	if err := c.Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, next)); err != nil {
		t.Fatal(err)
	}
	waitSettings(t, "dev", ns, "v2")
	until("the page offers to roll back to the first version", `document.getElementById("action-rollback")?.textContent.startsWith("Roll back to version ")`)
	shot("dashboard-rollback.png")
	clickPage(t, ctx, "action-rollback")
	until("the page says what the rollback did", `document.querySelector(".flash")?.textContent.startsWith("rolling back ClusterPromotion dash from version ")`)
	until("the promotion is rolled back", `document.querySelector("#title [data-state]")?.dataset.state === "RolledBack"`)
	waitSettings(t, "dev", ns, "v1")

	// The history timeline: the second version rolled back, the first through both stages, dev
	// approved by whom the API server stamped.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	approver := p.Annotations[configv1beta1.ApprovedByAnnotationPrefix+"dev"]
	if approver == "" {
		t.Fatalf("the approval from the page is not stamped: %v", p.Annotations)
	}
	until("the history shows both versions, and who approved dev", fmt.Sprintf(`(() => {
		const v = [...document.querySelectorAll(".history > .version")];
		return v.length === 2 && v[0].dataset.outcome === "RolledBack" && v[1].dataset.outcome === "Succeeded" &&
			v[1].querySelector('[data-history-stage="dev"] [data-approver]')?.textContent === %q &&
			v[1].querySelector('[data-history-stage="rest"]')?.dataset.outcome === "Succeeded" &&
			v[0].querySelector('[data-history-stage="dev"]')?.dataset.outcome === "RolledBack";
	})()`, approver))
	shot("dashboard-history.png")
}

// TestDashboardRollbackPlacement rolls a placement back from the page of its latest update run,
// in headless Chromium: the page offers the snapshot index an earlier run rolled out, and rolling
// back goes to the page of the run it creates, which puts the first content back on the clusters.
func TestDashboardRollbackPlacement(t *testing.T) {
	browser := chromium(t)
	c := fleetv1.Client(testenv.Client(t)) // the Kubefleet kinds go through v1, as Kubefleet's docs write them
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dashrun"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "dashrun"}, Data: map[string]string{"value": "v1"}}
	all := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "dashrun-all"}}
	all.Spec.Stages = []placementv1beta1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "dashrun"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "dashrun"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	for _, obj := range []client.Object{ns, cm, all, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	t.Cleanup(func() { // the runs, the one the dashboard creates included
		var runs placementv1beta1.ClusterStagedUpdateRunList
		_ = c.List(context.Background(), &runs)
		for i := range runs.Items {
			if runs.Items[i].Spec.PlacementName == "dashrun" {
				_ = c.Delete(context.Background(), &runs.Items[i])
			}
		}
	})
	rollOut := func(name string, index int) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			return c.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("dashrun-%d-snapshot", index)}, &placementv1beta1.ClusterResourceSnapshot{})
		})
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.ResourceSnapshotIndex = "dashrun", "dashrun-all", strconv.Itoa(index)
		if err := c.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		waitState(t, view.Succeeded, "run", name)
	}
	rollOut("dashrun-1", 0)
	cm.Data["value"] = "v2"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	rollOut("dashrun-2", 1)
	waitSettings(t, "qa", "dashrun", "v2")

	base := serveDashboard(t, testenv.Fleet.Management.Config, c)
	ctx := tab(t, browser)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/runs/dashrun-2")); err != nil {
		t.Fatal(err)
	}
	until := func(what, predicate string) {
		t.Helper()
		untilPage(t, ctx, what, predicate)
	}
	until("the run's page offers index 0", `[...document.querySelectorAll("#rollback-index option")].map(o => o.value).join() === "0"`)
	clickPage(t, ctx, "action-rollback")
	until("the page of the new run says what the rollback did", `location.pathname.startsWith("/runs/dashrun-rollback-") &&
		/^created ClusterStagedUpdateRun dashrun-rollback-\w+: ClusterResourcePlacement dashrun back to resource snapshot index 0 with strategy dashrun-all$/.test(document.querySelector(".flash")?.textContent)`)
	until("the rollback run succeeds", `document.querySelector("#title [data-state]")?.dataset.state === "Succeeded"`)
	waitSettings(t, "qa", "dashrun", "v1")
}

// TestDashboardAsViewer serves the dashboard with the credentials of someone who may read
// promotions and what they deploy, and nothing else: the pages say what they cannot show, and an
// action is refused with a 403 in the API server's own words.
func TestDashboardAsViewer(t *testing.T) {
	c := testenv.Client(t)
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "dash-viewer"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "dash-viewer"}}
	only := configv1beta1.Stage{Name: "only"}
	only.ClusterSelector.MatchLabels = map[string]string{"env": "none"}
	p.Spec.Stages = []configv1beta1.Stage{only}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })
	kubeconfig := impersonating(t, "dash-viewer", rbacv1.PolicyRule{
		APIGroups: []string{configv1beta1.GroupVersion.Group, libv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions", "clusterprofiles", "clustersummaries", "sveltosclusters"},
		Verbs:     []string{"get", "list", "watch"}})
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	base := serveDashboard(t, cfg, viewer)
	get := func(path string) string {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
		}
		return string(body)
	}
	overview := get("/")
	for _, want := range []string{`href="/promotions/dash-viewer"`,
		"not shown: you may not list or watch events.events.k8s.io in every namespace",
		"not shown: you may not list or watch clusterstagedupdateruns.placement.kubernetes-fleet.io in every namespace"} {
		if !strings.Contains(overview, want) {
			t.Errorf("the overview lacks %q:\n%s", want, overview)
		}
	}
	code, page := request(t, http.MethodPost, base+"/promotions/dash-viewer/suspend", "", nil)
	if want := `permission denied: clusterpromotions.config.projectsveltos.io &#34;dash-viewer&#34; is forbidden: User &#34;dash-viewer&#34; cannot patch resource &#34;clusterpromotions&#34;`; code != http.StatusForbidden || !strings.Contains(page, want) {
		t.Errorf("a refused suspend: %d, want 403 with %q:\n%s", code, want, page)
	}
	got := &configv1beta1.ClusterPromotion{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), got); err != nil || got.Spec.Suspend {
		t.Errorf("the promotion was suspended (%v)", err)
	}
}

// TestDashboardCommand runs stagecoach dashboard as a user would: it says where it serves, the
// page answers there, and it stops when told to. Asked to serve at an address other machines
// reach without --authenticate, it refuses.
func TestDashboardCommand(t *testing.T) {
	refused := newRootCommand()
	refused.SetArgs([]string{"dashboard", "--kubeconfig", testenv.Fleet.Management.Kubeconfig, "--listen", "0.0.0.0:0"})
	refused.SetOut(io.Discard)
	refused.SetErr(io.Discard)
	if err := refused.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), "without --authenticate") {
		t.Errorf("serving at 0.0.0.0 without --authenticate: %v, want a refusal", err)
	}
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		cmd := newRootCommand()
		cmd.SetArgs([]string{"dashboard", "--kubeconfig", testenv.Fleet.Management.Kubeconfig, "--listen", "127.0.0.1:0"})
		cmd.SetOut(out)
		cmd.SetErr(out)
		done <- cmd.ExecuteContext(ctx)
	}()
	var url string
	testenv.Eventually(t, timeout, func(context.Context) error {
		_, rest, ok := strings.Cut(out.String(), " at http://")
		if !ok {
			return fmt.Errorf("the command has not said where it serves: %q", out.String())
		}
		url = "http://" + strings.Fields(rest)[0]
		return nil
	})
	if err := waitOK(t.Context(), url+"/"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the dashboard exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the dashboard did not stop when its context was cancelled")
	}
}

// lockedBuffer is a buffer a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stageChange watches the promotion and sends, once, when its stage first shows state.
func stageChange(t *testing.T, promotion, stage string, state view.State) <-chan time.Time {
	t.Helper()
	wc, err := client.NewWithWatch(testenv.Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(t.Context(), &configv1beta1.ClusterPromotionList{}, client.MatchingFields{"metadata.name": promotion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	at := make(chan time.Time, 1)
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*configv1beta1.ClusterPromotion)
			if !ok {
				continue
			}
			for _, st := range view.PromotionOutline(p).Stages {
				if st.Name == stage && st.State == state {
					at <- time.Now()
					return
				}
			}
		}
	}()
	return at
}

// untilPage waits for the JavaScript predicate to hold in the tab's page, asking again while a
// form's navigation replaces the page.
// clickPage clicks the element with the id in the page's own context, finding and clicking it in
// one step: the live page may replace the element between a lookup from outside and a click.
func clickPage(t *testing.T, tab context.Context, id string) {
	t.Helper()
	untilPage(t, tab, "#"+id+" is there to click",
		fmt.Sprintf(`(() => { const e = document.getElementById(%q); e?.click(); return !!e })()`, id))
}

func untilPage(t *testing.T, tab context.Context, what, predicate string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(context.Context) error {
		// The tab's context has run once: a deadline derived from it bounds this attempt only.
		attempt, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		ok, err := chromedp.Run(attempt, chromedp.Evaluate[bool](predicate))
		if err != nil || !ok {
			text, _ := chromedp.Run(attempt, chromedp.Evaluate[string](`document.getElementById("main")?.innerText ?? ""`))
			return fmt.Errorf("%s: %v; the page reads:\n%s", what, err, text)
		}
		return nil
	})
}

// serveDashboard serves the dashboard as the identity of cfg, with actions by c, on a port of
// its own.
func serveDashboard(t *testing.T, cfg *rest.Config, c client.Client) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := dashboard.Standalone(ctx, cfg, dashboard.Options{Writer: c, Log: ctrl.Log.WithName("dashboard")})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := dashboard.ServeListener(ctx, ln, srv, ctrl.Log.WithName("dashboard")); err != nil && ctx.Err() == nil {
			t.Errorf("dashboard: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	return "http://" + ln.Addr().String()
}

// chromium finds Debian's chromium, which make test installs (make browser). Without it the
// test is skipped, unless STAGECOACH_REQUIRE_BROWSER is set, as make test sets it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("STAGECOACH_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH: make browser installs it")
	}
	t.Skip("no chromium on PATH (make browser installs it)")
	return ""
}

// tab opens a headless browser tab, closed at the end of the test.
func tab(t *testing.T, browser string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1440, 960),
		chromedp.NoSandbox, chromedp.Flag("disable-gpu", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first action starts the browser; it must not carry a deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// artifactDir is where the test leaves its screenshots.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("STAGECOACH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "stagecoach-artifacts")
	}
	dir = filepath.Join(dir, "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}
