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
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/dashboard"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testcert"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestDashboardAuthenticated serves the dashboard as the controller does, with the rights the
// chart gives it, authenticating its viewers against the sandbox's real API server, and drives it in headless Chromium: without a
// token every page is a 401 that asks for one; a ServiceAccount that may only read promotions
// signs in, sees the promotion, and its approval is a 403 with the API server's words while the
// promotion stays as it was; a ServiceAccount that may approve signs in and approves.
func TestDashboardAuthenticated(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	const ns = "dash-auth"
	approved := gatePromotion(t, "dash-auth")
	read := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group, libv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions", "clusterprofiles", "clustersummaries", "sveltosclusters"}, Verbs: []string{"get", "list", "watch"}}
	approve := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group}, Resources: []string{"clusterpromotions"}, Verbs: []string{"patch"}}
	readerToken := serviceAccountToken(t, ns, "reader", read)
	approverToken := serviceAccountToken(t, ns, "approver", read, approve)
	server := dashboardIdentity(t, ns, false)
	base := serveAuthenticated(t, server, dashboard.Options{Actions: true,
		Auth: &dashboard.Auth{Reviewer: clientFor(t, server), Config: server}})

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

// TestDashboardBehindProxy serves the dashboard over TLS behind a trusted authenticating proxy,
// with the rights the chart gives it then: requests with the proxy's client certificate are the
// users its headers name, and their actions impersonate them, so the real API server's RBAC
// refuses the read-only ServiceAccount's approval (403, nothing changes) and lets the approver's
// through; the same headers without the certificate are a 401.
func TestDashboardBehindProxy(t *testing.T) {
	t.Parallel()
	const ns = "dash-proxy"
	approved := gatePromotion(t, "dash-proxy")
	read := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group, libv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions", "clusterprofiles", "clustersummaries", "sveltosclusters"}, Verbs: []string{"get", "list", "watch"}}
	approve := rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group}, Resources: []string{"clusterpromotions"}, Verbs: []string{"patch"}}
	serviceAccountToken(t, ns, "reader", read)
	serviceAccountToken(t, ns, "approver", read, approve)
	server := dashboardIdentity(t, ns, true)
	ca := testcert.NewAuthority(t)
	certFile, keyFile := testcert.WriteFiles(t, ca.Server(t, net.ParseIP("127.0.0.1")))
	base := serveAuthenticated(t, server, dashboard.Options{Actions: true, TLS: &dashboard.TLS{CertFile: certFile, KeyFile: keyFile},
		Auth: &dashboard.Auth{Reviewer: clientFor(t, server), Config: server,
			Proxy: &dashboard.Proxy{ClientCAs: ca.Pool, AllowedNames: []string{"front-proxy"}}}})
	base = strings.Replace(base, "http://", "https://", 1)
	proxy := ca.Client(t, "front-proxy")
	send := func(method, path, user string, cert *tls.Certificate, form url.Values) (int, string) {
		t.Helper()
		cfg := &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, _ := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Remote-User", "system:serviceaccount:"+ns+":"+user)
		for _, g := range []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"} {
			req.Header.Add("X-Remote-Group", g)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := send(http.MethodGet, "/promotions/dash-proxy", "approver", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("X-Remote-User without the proxy's certificate: %d, want 401\n%s", code, body)
	}
	if code, body := send(http.MethodGet, "/promotions/dash-proxy", "reader", &proxy, nil); code != http.StatusOK ||
		!strings.Contains(body, "system:serviceaccount:dash-proxy:reader") || !strings.Contains(body, `id="approve-gate"`) {
		t.Errorf("the reader through the proxy: %d\n%s", code, body)
	}
	code, body := send(http.MethodPost, "/promotions/dash-proxy/approve", "reader", &proxy, url.Values{"stage": {"gate"}})
	if want := `User &#34;system:serviceaccount:dash-proxy:reader&#34; cannot patch resource &#34;clusterpromotions&#34;`; code != http.StatusForbidden || !strings.Contains(body, want) || approved() {
		t.Errorf("the reader's approval through the proxy: %d, approved %t, want 403 with %q\n%s", code, approved(), want, body)
	}
	if code, body := send(http.MethodPost, "/promotions/dash-proxy/approve", "approver", &proxy, url.Values{"stage": {"gate"}}); code != http.StatusSeeOther || !approved() {
		t.Errorf("the approver's approval through the proxy: %d, approved %t\n%s", code, approved(), body)
	}
}

// gatePromotion creates a promotion whose one stage waits for a manual approval, and waits for it
// to get there. The function it returns says whether the promotion's spec changed since, which
// only an approval does here (the controller consumes an approval, so the field itself does not
// stay true).
func gatePromotion(t *testing.T, name string) func() bool {
	t.Helper()
	c := testenv.Client(t)
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: name}}
	gate := configv1beta1.Stage{Name: "gate", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	gate.ClusterSelector.MatchLabels = map[string]string{"env": "none"}
	p.Spec.Stages = []configv1beta1.Stage{gate}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })
	var before int64
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil || got.Status.CurrentStageName != "gate" {
			return fmt.Errorf("the promotion has not reached its gate (%v)", err)
		}
		before = got.Generation
		return nil
	})
	return func() bool {
		t.Helper()
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		return got.Generation != before
	}
}

// dashboardIdentity is a ServiceAccount of ns with the rules the chart gives the controller when
// it serves the dashboard (with a trusted proxy or not): its main role's and the dashboard's. It
// returns a configuration that authenticates with the ServiceAccount's own token, so that
// impersonation, too, is done with exactly these rights.
func dashboardIdentity(t *testing.T, ns string, proxy bool) *rest.Config {
	t.Helper()
	values := map[string]any{"dashboard": map[string]any{"enabled": true}}
	if proxy {
		values = map[string]any{"dashboard": map[string]any{"enabled": true, "tls": map[string]any{"secretName": "tls"},
			"proxy": map[string]any{"clientCAConfigMap": "ca"}}}
	}
	out, err := chartrender.Render(t.Context(), "../../charts/stagecoach",
		chartrender.Options{Release: "stagecoach", Namespace: testenv.ChartNamespace, Values: values})
	if err != nil {
		t.Fatal(err)
	}
	var rules []rbacv1.PolicyRule
	for _, doc := range strings.Split(out, "\n---\n") {
		var r rbacv1.ClusterRole
		if yaml.Unmarshal([]byte(doc), &r) == nil && r.Kind == "ClusterRole" && slices.Contains([]string{"stagecoach", "stagecoach-dashboard", "stagecoach-dashboard-proxy"}, r.Name) {
			rules = append(rules, r.Rules...)
		}
	}
	cfg := rest.AnonymousClientConfig(testenv.Fleet.Management.Config)
	cfg.BearerToken = serviceAccountToken(t, ns, "dashboard", rules...)
	return cfg
}

func clientFor(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
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

// serveAuthenticated serves the dashboard as the controller serves it, reading with the identity
// of cfg, with opts.
func serveAuthenticated(t *testing.T, cfg *rest.Config, opts dashboard.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	opts.Log = ctrl.Log.WithName("dashboard")
	srv, err := dashboard.Standalone(ctx, cfg, opts)
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
		if err := dashboard.ServeListener(ctx, ln, srv, opts.Log); err != nil && ctx.Err() == nil {
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
