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
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/dashboard"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestDashboardAuthenticated serves the dashboard as the controller does, authenticating its
// viewers against the sandbox's real API server, and drives it in headless Chromium: without a
// token every page is a 401 that asks for one; a ServiceAccount that may only read promotions
// signs in, sees the promotion, and its approval is a 403 with the API server's words while the
// promotion stays as it was; a ServiceAccount that may approve signs in and approves.
func TestDashboardAuthenticated(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	c := testenv.Client(t)
	const ns = "dash-auth"
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "dash-auth"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "dash-auth"}}
	gate := configv1beta1.Stage{Name: "gate", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	gate.ClusterSelector.MatchLabels = map[string]string{"env": "none"}
	p.Spec.Stages = []configv1beta1.Stage{gate}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })
	read := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group, libv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions", "clusterprofiles", "clustersummaries", "sveltosclusters"}, Verbs: []string{"get", "list", "watch"}}
	approve := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group}, Resources: []string{"clusterpromotions"}, Verbs: []string{"patch"}}
	readerToken := serviceAccountToken(t, ns, "reader", read)
	approverToken := serviceAccountToken(t, ns, "approver", read, approve)

	base := serveAuthenticated(t)
	// The approval is the one change to the promotion's spec that the test makes: its
	// generation says whether anyone approved (the controller then consumes the approval).
	generation := func() int64 {
		t.Helper()
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		return got.Generation
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil || got.Status.CurrentStageName != "gate" {
			return fmt.Errorf("the promotion has not reached its gate (%v)", err)
		}
		return nil
	})
	before := generation()
	approved := func() bool { return generation() != before }

	// Without a browser: no token, a forged one, then the reader's approval sent by hand.
	for token, want := range map[string]int{"": http.StatusUnauthorized, "forged": http.StatusUnauthorized, readerToken: http.StatusOK} {
		if code, body := request(t, http.MethodGet, base+"/promotions/dash-auth", token, nil); code != want {
			t.Errorf("GET with token %.10q: %d, want %d\n%s", token, code, want, body)
		}
	}
	code, body := request(t, http.MethodPost, base+"/promotions/dash-auth/approve", readerToken, url.Values{"stage": {"gate"}})
	if want := `User &#34;system:serviceaccount:dash-auth:reader&#34; cannot patch resource &#34;clusterpromotions&#34;`; code != http.StatusForbidden || !strings.Contains(body, want) || approved() {
		t.Errorf("the reader's approval: %d, approved %t, want 403 with %q:\n%s", code, approved(), want, body)
	}

	ctx := tab(t, browser)
	until := func(what, predicate string) {
		t.Helper()
		untilPage(t, ctx, what, predicate)
	}
	const status = `performance.getEntriesByType("navigation")[0]?.responseStatus`
	signIn := func(token string) {
		t.Helper()
		until("the sign-in page asks for a token", status+` === 401 && document.getElementById("token") !== null`)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
			`(() => { document.getElementById("token").value = %q; document.getElementById("signin").click(); return true })()`, token))); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/promotions/dash-auth")); err != nil {
		t.Fatal(err)
	}
	until("no token: 401, and nothing of the promotion", status+` === 401 && !document.body.innerText.includes("gate")`)
	signIn(readerToken)
	until("the reader sees the stage waiting", `document.getElementById("viewer")?.textContent === "system:serviceaccount:dash-auth:reader" &&
		document.querySelector('[data-stage="gate"] [data-waiting]')?.textContent.includes("Awaiting Manual Approval")`)
	clickPage(t, ctx, "approve-gate")
	until("the reader's approval is a 403 in the API server's words", status+` === 403 &&
		document.body.innerText.includes('User "system:serviceaccount:dash-auth:reader" cannot patch resource "clusterpromotions"')`)
	if approved() {
		t.Fatal("the reader approved the stage")
	}

	clickPage(t, ctx, "signout")
	signIn(approverToken)
	until("the approver is signed in", `document.getElementById("viewer")?.textContent === "system:serviceaccount:dash-auth:approver"`)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/promotions/dash-auth")); err != nil {
		t.Fatal(err)
	}
	clickPage(t, ctx, "approve-gate")
	until("the page says what the approval did", `document.querySelector(".flash")?.textContent === "approved stage gate of ClusterPromotion dash-auth"`)
	if !approved() {
		t.Error("the approver's approval did not reach the promotion")
	}
}

// serviceAccountToken creates the ServiceAccount ns/name, bound to the rules, and returns a
// token for it from the TokenRequest API, as kubectl create token does.
func serviceAccountToken(t *testing.T, ns, name string, rules ...rbacv1.PolicyRule) string {
	t.Helper()
	c := testenv.Client(t)
	kube := kubernetes.NewForConfigOrDie(testenv.Fleet.Management.Config)
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err == nil {
		t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}}}
	for _, obj := range []client.Object{sa, role, binding} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// serveAuthenticated serves the dashboard as the controller serves it: reading with an identity
// of its own, serving only viewers who bring a token, each what it may see, acting as them.
func serveAuthenticated(t *testing.T) string {
	t.Helper()
	cfg := testenv.Fleet.Management.Config
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := dashboard.Standalone(ctx, cfg, dashboard.Options{Log: ctrl.Log.WithName("dashboard"), Actions: true,
		Auth: &dashboard.Auth{Reviewer: testenv.Client(t), Config: cfg}})
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

// request sends a request with the bearer token (none when empty) and returns its status and body.
func request(t *testing.T, method, target, token string, form url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
