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

package fleet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func sveltosCluster(ns, name string) *libv1beta1.SveltosCluster {
	return &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func kubeconfigSecret(ns, name string, data []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string][]byte{"kubeconfig": data},
	}
}

func TestCacheRebuildsRemoteWhenKubeconfigChanges(t *testing.T) {
	ctx := t.Context()
	ref := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "prod"}
	secret := kubeconfigSecret("ns", "prod-sveltos-kubeconfig", testKubeconfig(t, "https://10.0.0.1:6443", nil, nil))
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(sveltosCluster("ns", "prod"), secret).Build()
	cache := NewCache(c, CacheOptions{})

	first, err := cache.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if first.Config.Host != "https://10.0.0.1:6443" || first.Ref != ref {
		t.Fatalf("remote %s for %s", first.Config.Host, first.Ref)
	}
	if again, _ := cache.Get(ctx, ref); again != first {
		t.Error("a second Get built another Remote")
	}

	// A change to the Secret that leaves the kubeconfig alone keeps the connection.
	secret.Labels = map[string]string{"team": "a"}
	secret.Data["unrelated"] = []byte("x")
	update(ctx, t, c, secret)
	if again, _ := cache.Get(ctx, ref); again != first {
		t.Error("relabelling the Secret rebuilt the Remote")
	}

	// New credentials or a new server: a new Remote.
	secret.Data["kubeconfig"] = testKubeconfig(t, "https://10.0.0.2:6443", nil, nil)
	update(ctx, t, c, secret)
	second, err := cache.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || second.Config.Host != "https://10.0.0.2:6443" {
		t.Errorf("after the kubeconfig changed: same Remote %v, host %s", second == first, second.Config.Host)
	}

	// Pointing the cluster at another key of the same Secret also counts as a change.
	secret.Data["other"] = testKubeconfig(t, "https://10.0.0.3:6443", nil, nil)
	update(ctx, t, c, secret)
	cluster := sveltosCluster("ns", "prod")
	if err := c.Get(ctx, client.ObjectKeyFromObject(cluster), cluster); err != nil {
		t.Fatal(err)
	}
	cluster.Spec.KubeconfigKeyName = "other"
	update(ctx, t, c, cluster)
	if third, err := cache.Get(ctx, ref); err != nil || third.Config.Host != "https://10.0.0.3:6443" {
		t.Errorf("after switching keys: %v, %v", third, err)
	}

	// A broken kubeconfig is an error naming the Secret and key, and the old connection is gone.
	cluster.Spec.KubeconfigKeyName = "nope"
	update(ctx, t, c, cluster)
	_, err = cache.Get(ctx, ref)
	if ce, ok := AsClusterError(err); !ok || ce.Reason != ReasonKubeconfigNotFound ||
		!strings.Contains(err.Error(), `kubeconfig Secret ns/prod-sveltos-kubeconfig has no key "nope"`) {
		t.Errorf("Get with a missing key: %v", err)
	}
	if conn := cache.connection(ref); conn.config != nil || conn.remote != nil {
		t.Error("the connection built from the previous kubeconfig is still cached")
	}

	// An unregistered cluster is NotFound, and Forget drops what was kept.
	_, err = cache.Get(ctx, ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "gone"})
	if !apierrors.IsNotFound(err) {
		t.Errorf("Get of an unregistered cluster: %v, want NotFound", err)
	}
	cache.Forget(ref)
	cache.Forget(ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "gone"})
	if len(cache.connections) != 0 {
		t.Errorf("%d connections left after Forget", len(cache.connections))
	}
}

func TestCacheMemberCluster(t *testing.T) {
	ctx := t.Context()
	member := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m1",
		Annotations: map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: "fleet/m1"}}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(member).Build()
	cache := NewCache(c, CacheOptions{})
	ref := RefOf(member)
	if _, err := cache.Get(ctx, ref); err == nil || err.Error() != "kubeconfig Secret fleet/m1 does not exist" {
		t.Fatalf("Get without the Secret: %v", err)
	}
	create(ctx, t, c, kubeconfigSecret("fleet", "m1", testKubeconfig(t, "https://10.0.0.9:6443", nil, nil)))
	remote, err := cache.Get(ctx, ref)
	if err != nil || remote.Config.Host != "https://10.0.0.9:6443" {
		t.Fatalf("Get: %v, %v", remote, err)
	}
}

// TestCacheConcurrentUse has many goroutines share the cache; run it with -race.
func TestCacheConcurrentUse(t *testing.T) {
	ctx := t.Context()
	b := fake.NewClientBuilder().WithScheme(scheme.New())
	var refs []ClusterRef
	for i := range 8 {
		name := fmt.Sprintf("c%d", i)
		b.WithObjects(sveltosCluster("ns", name),
			kubeconfigSecret("ns", name+"-sveltos-kubeconfig", testKubeconfig(t, fmt.Sprintf("https://10.0.0.%d:6443", i), nil, nil)))
		refs = append(refs, ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: name})
	}
	cache := NewCache(b.Build(), CacheOptions{})
	got := make([][]*Remote, len(refs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 20 {
				ref := refs[(g+i)%len(refs)]
				remote, err := cache.Get(ctx, ref)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				idx := slices.Index(refs, ref)
				got[idx] = append(got[idx], remote)
				mu.Unlock()
				if i%5 == 0 {
					cache.Forget(refs[(g+i+1)%len(refs)])
				}
			}
		})
	}
	wg.Wait()
	for i, remotes := range got {
		for _, r := range remotes {
			if r.Ref != refs[i] {
				t.Fatalf("Get(%s) returned the Remote of %s", refs[i], r.Ref)
			}
		}
	}
}

func TestCacheList(t *testing.T) {
	ctx := t.Context()
	now := metav1.Now()
	ready := sveltosCluster("dev", "dev")
	ready.Labels = map[string]string{"env": "dev"}
	ready.Status.Ready = true
	down := sveltosCluster("prod", "prod")
	down.Spec.Paused = true
	down.Status.FailureMessage = ptr.To("cannot reach https://10.0.0.1:6443: connection refused")
	deleting := sveltosCluster("old", "old")
	deleting.DeletionTimestamp, deleting.Finalizers = &now, []string{"keep"}
	joined := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m1", Labels: map[string]string{"env": "canary"}},
		Status: clusterv1beta1.MemberClusterStatus{Conditions: []metav1.Condition{{Type: "Joined", Status: metav1.ConditionTrue}}}}
	left := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m2"},
		Status: clusterv1beta1.MemberClusterStatus{Conditions: []metav1.Condition{{Type: "Joined", Status: metav1.ConditionFalse, Message: "gone"}}}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ready, down, deleting, joined, left).Build()
	cache := NewCache(c, CacheOptions{})

	all, err := cache.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Cluster{}
	for _, cl := range all {
		byName[cl.Ref.String()] = cl
	}
	want := map[string]Cluster{
		"SveltosCluster/dev/dev":   {Ref: RefOf(ready), Labels: map[string]string{"env": "dev"}, Ready: true},
		"SveltosCluster/prod/prod": {Ref: RefOf(down), Paused: true, Message: *down.Status.FailureMessage},
		"SveltosCluster/old/old":   {Ref: RefOf(deleting), Deleting: true},
		"MemberCluster/m1":         {Ref: RefOf(joined), Labels: map[string]string{"env": "canary"}, Ready: true},
		"MemberCluster/m2":         {Ref: RefOf(left), Message: "gone"},
	}
	if len(all) != len(want) {
		t.Errorf("List returned %d clusters, want %d: %+v", len(all), len(want), all)
	}
	for name, w := range want {
		g := byName[name]
		if g.Ref != w.Ref || g.Ready != w.Ready || g.Paused != w.Paused || g.Deleting != w.Deleting ||
			g.Message != w.Message || !mapsEqual(g.Labels, w.Labels) {
			t.Errorf("%s: got %+v, want %+v", name, g, w)
		}
	}

	members, err := cache.List(ctx, KindMemberCluster)
	if err != nil || len(members) != 2 || members[0].Ref.Kind != KindMemberCluster {
		t.Errorf("List(MemberCluster) = %+v, %v", members, err)
	}
	one, err := cache.Cluster(ctx, RefOf(down))
	if err != nil || !one.Paused || one.Ready {
		t.Errorf("Cluster(prod) = %+v, %v", one, err)
	}
	if _, err := cache.Cluster(ctx, ClusterRef{Kind: KindMemberCluster, Name: "nope"}); !apierrors.IsNotFound(err) {
		t.Errorf("Cluster of an unregistered cluster: %v, want NotFound", err)
	}
}

// TestProbe probes real HTTPS servers standing in for API servers, in the ways they fail.
func TestProbe(t *testing.T) {
	ctx := t.Context()
	versionHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" || r.Header.Get("Authorization") != "Bearer "+secretToken {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.3"}`))
	})
	apiServer := httptest.NewTLSServer(versionHandler)
	defer apiServer.Close()
	apiServerCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: apiServer.Certificate().Raw})

	unauthorized := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`))
	}))
	defer unauthorized.Close()

	// A server that never answers: the handler waits for the client to give up.
	silent := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer silent.Close()

	plainHTTP := httptest.NewServer(versionHandler)
	defer plainHTTP.Close()

	closedPort := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return addr
	}()

	caOf := func(s *httptest.Server) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	}
	for _, tc := range []struct {
		name        string
		kubeconfig  []byte
		wantVersion string
		wantErr     string
	}{
		{name: "answers", kubeconfig: testKubeconfig(t, apiServer.URL, apiServerCA, nil), wantVersion: "v1.36.3"},
		{name: "connection refused", kubeconfig: testKubeconfig(t, "https://"+closedPort, apiServerCA, nil),
			wantErr: "cannot reach https://" + closedPort + ": connection refused"},
		{name: "no answer", kubeconfig: testKubeconfig(t, silent.URL, caOf(silent), nil),
			wantErr: "cannot reach " + silent.URL + ": no answer within 500ms"},
		{name: "credentials rejected", kubeconfig: testKubeconfig(t, unauthorized.URL, caOf(unauthorized), nil),
			wantErr: unauthorized.URL + " rejected the kubeconfig's credentials (401 Unauthorized)"},
		{name: "unknown CA", kubeconfig: testKubeconfig(t, apiServer.URL, otherCA(t), nil),
			wantErr: "cannot reach " + apiServer.URL + ": its certificate is not signed by the kubeconfig's certificate-authority-data"},
		{name: "not TLS", kubeconfig: testKubeconfig(t, strings.Replace(plainHTTP.URL, "http:", "https:", 1), apiServerCA, nil),
			wantErr: "cannot reach " + strings.Replace(plainHTTP.URL, "http:", "https:", 1) + ": http: server gave HTTP response to HTTPS client"},
		{name: "user in URL", kubeconfig: testKubeconfig(t, "https://admin:"+secretToken+"@"+closedPort, apiServerCA, nil),
			wantErr: "cannot reach https://" + closedPort + ": connection refused"},
		{name: "bad CA data", kubeconfig: testKubeconfig(t, apiServer.URL, []byte("not PEM"), nil),
			wantErr: `the kubeconfig in key "kubeconfig" of Secret ns/c-sveltos-kubeconfig has unusable TLS settings`},
		{name: "bad client key", kubeconfig: testKubeconfig(t, apiServer.URL, apiServerCA, func(c *clientcmdapi.Config) {
			c.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificateData: apiServerCA, ClientKeyData: []byte(secretToken)}
		}), wantErr: "has unusable TLS settings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).
				WithObjects(sveltosCluster("ns", "c"), kubeconfigSecret("ns", "c-sveltos-kubeconfig", tc.kubeconfig)).Build()
			cache := NewCache(c, CacheOptions{})
			version, err := cache.Probe(ctx, ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "c"}, 500*time.Millisecond, false)
			checkErr(t, err, tc.wantErr)
			if version != tc.wantVersion {
				t.Errorf("version %q, want %q", version, tc.wantVersion)
			}
			if _, ok := AsClusterError(err); err != nil && !ok {
				t.Errorf("error %v is not a ClusterError", err)
			}
		})
	}

	// A probe cancelled by its caller says nothing about the cluster.
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(sveltosCluster("ns", "c"), kubeconfigSecret("ns", "c-sveltos-kubeconfig", testKubeconfig(t, silent.URL, caOf(silent), nil))).Build()
	cancelled, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err := NewCache(c, CacheOptions{}).Probe(cancelled, ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "c"}, time.Minute, false)
	if _, ok := AsClusterError(err); ok || err == nil {
		t.Errorf("cancelled probe: %v, want the context's error", err)
	}
}

func TestIdleRemotesAreDropped(t *testing.T) {
	ctx := t.Context()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(sveltosCluster("ns", "c"), kubeconfigSecret("ns", "c-sveltos-kubeconfig", testKubeconfig(t, closed.URL, nil, nil))).Build()
	cache := NewCache(c, CacheOptions{RemoteIdleTimeout: time.Hour})
	ref := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "c"}
	remote, err := cache.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	// The discovery the Remote read, as a mapping would have left it.
	discovered := &internedMapper{}
	remote.Mapper.(*sharedMapper).current = discovered
	_, _ = cache.Probe(ctx, ref, time.Second, true)
	if again, _ := cache.Get(ctx, ref); again != remote {
		t.Error("a Remote in use was dropped")
	}
	idle := func() {
		conn := cache.connection(ref)
		conn.remoteUsed = time.Now().Add(-2 * time.Hour)
		cache.swept = time.Now().Add(-time.Hour)
	}
	idle()
	_, _ = cache.Probe(ctx, ref, time.Second, true)
	if conn := cache.connection(ref); conn.remote != nil || conn.config != nil {
		t.Error("an idle Remote, or the connection of a cluster probed minutes apart, was kept")
	}

	again, err := cache.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if again == remote {
		t.Fatal("the idle Remote was handed out again")
	}
	if again.mapping() != discovered {
		t.Error("the rebuilt Remote read discovery again rather than starting from what its cluster served")
	}
	// Deployers asking for another cluster sweep this one's idle Remote away too.
	idle()
	other := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "other"}
	if _, err := cache.Get(ctx, other); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of an unregistered cluster: %v", err)
	}
	if cache.connection(ref).remote != nil {
		t.Error("an idle Remote outlived a sweep")
	}
}

// otherCA returns a CA certificate that signed none of the test servers' certificates.
func otherCA(t testing.TB) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func create(ctx context.Context, t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

func update(ctx context.Context, t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func TestProbeIntervalStretchesWithTheFleet(t *testing.T) {
	opts := ProbeOptions{ProbeInterval: 10 * time.Second, MaxProbeRate: 100}.WithDefaults()
	for _, tc := range []struct {
		clusters   int
		lastFailed bool
		want       time.Duration
	}{
		{clusters: 5, want: 10 * time.Second},
		{clusters: 1000, want: 10 * time.Second},
		{clusters: 5000, want: 50 * time.Second},
		{clusters: 20000, want: 200 * time.Second},
		{clusters: 20000, lastFailed: true, want: 10 * time.Second},
	} {
		if got := opts.Interval(tc.clusters, tc.lastFailed); got != tc.want {
			t.Errorf("%d clusters, last probe failed %v: every %v, want %v", tc.clusters, tc.lastFailed, got, tc.want)
		}
	}
}

// TestProbeRelease: a probe made with release leaves no connection open, to a server that
// offers HTTP/2 as to one that does not, and keeps nothing for the cluster unless a deployer
// uses it; one without keeps its connection for the next request.
func TestProbeRelease(t *testing.T) {
	for _, h2 := range []bool{true, false} {
		t.Run(fmt.Sprintf("http2=%v", h2), func(t *testing.T) {
			var open atomic.Int32
			server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.3"}`))
			}))
			server.EnableHTTP2 = h2
			server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				switch s {
				case http.StateNew:
					open.Add(1)
				case http.StateClosed, http.StateHijacked:
					open.Add(-1)
				}
			}
			server.StartTLS()
			defer server.Close()
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
			c := fake.NewClientBuilder().WithScheme(scheme.New()).
				WithObjects(sveltosCluster("ns", "c"), kubeconfigSecret("ns", "c-sveltos-kubeconfig", testKubeconfig(t, server.URL, ca, nil))).Build()
			cache := NewCache(c, CacheOptions{})
			ref := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "c"}
			openConnections := func(want int32) {
				t.Helper()
				deadline := time.Now().Add(5 * time.Second)
				for open.Load() != want && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if n := open.Load(); n != want {
					t.Fatalf("%d connections open, want %d", n, want)
				}
			}
			if _, err := cache.Probe(t.Context(), ref, 5*time.Second, false); err != nil {
				t.Fatal(err)
			}
			openConnections(1)
			if _, err := cache.Probe(t.Context(), ref, 5*time.Second, true); err != nil {
				t.Fatal(err)
			}
			openConnections(0)
			if conn := cache.connection(ref); conn.config != nil || conn.probe != nil {
				t.Fatal("a released probe left the cluster's parsed kubeconfig and client behind")
			}
			if _, err := cache.Probe(t.Context(), ref, 5*time.Second, true); err != nil {
				t.Fatalf("probing again after a release: %v", err)
			}

			// A cluster being deployed to keeps its clients across released probes.
			remote, err := cache.Get(t.Context(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cache.Probe(t.Context(), ref, 5*time.Second, true); err != nil {
				t.Fatal(err)
			}
			if again, err := cache.Get(t.Context(), ref); err != nil || again != remote {
				t.Fatalf("a released probe dropped the Remote in use (err %v)", err)
			}
		})
	}
}

// TestProbeSharedByBothRegistrations: a cluster registered as a SveltosCluster and as a
// MemberCluster with the same kubeconfig answers one probe for both within fresh; a probe that
// finds it unreachable is not shared, and the next probe of the other registration asks the
// cluster itself; a plain Probe always asks.
func TestProbeSharedByBothRegistrations(t *testing.T) {
	ctx := t.Context()
	var asked atomic.Int32
	down := atomic.Bool{}
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if down.Load() {
			hj, ok := w.(http.Hijacker)
			if ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
				}
			}
			return
		}
		_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.3"}`))
	}))
	defer server.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	member := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "c",
		Annotations: map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: "ns/c-sveltos-kubeconfig"}}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(sveltosCluster("ns", "c"), member,
		kubeconfigSecret("ns", "c-sveltos-kubeconfig", testKubeconfig(t, server.URL, ca, nil))).Build()
	cache := NewCache(c, CacheOptions{})
	sveltos := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "c"}
	members := RefOf(member)

	probe := func(ref ClusterRef, fresh time.Duration) error {
		t.Helper()
		version, err := cache.ProbeShared(ctx, ref, 2*time.Second, true, fresh)
		if err == nil && version != "v1.36.3" {
			t.Fatalf("version %q", version)
		}
		return err
	}
	if err := probe(sveltos, time.Minute); err != nil || asked.Load() != 1 {
		t.Fatalf("first probe: %v, %d requests", err, asked.Load())
	}
	if err := probe(members, time.Minute); err != nil || asked.Load() != 1 {
		t.Fatalf("the other registration within fresh: %v, %d requests, want the answer shared", err, asked.Load())
	}
	if err := probe(members, time.Nanosecond); err != nil || asked.Load() != 2 {
		t.Fatalf("past fresh: %v, %d requests, want the cluster asked", err, asked.Load())
	}
	if _, err := cache.Probe(ctx, members, 2*time.Second, true); err != nil || asked.Load() != 3 {
		t.Fatalf("Probe: %v, %d requests, want the cluster asked", err, asked.Load())
	}

	down.Store(true)
	if err := probe(sveltos, time.Nanosecond); err == nil {
		t.Fatal("a cluster that drops every connection answered")
	}
	before := asked.Load()
	if err := probe(members, time.Minute); err == nil || asked.Load() == before {
		t.Fatalf("after a failed probe: %v, %d requests; want the cluster asked, and its failure", err, asked.Load()-before)
	}
}
