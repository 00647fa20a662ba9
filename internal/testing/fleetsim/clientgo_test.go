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

package fleetsim

import (
	"crypto/x509"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestDiscovery(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	_, lists, err := clientset(t, f.Clusters()[0]).Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lists {
		for _, r := range l.APIResources {
			got = append(got, l.GroupVersion+" "+r.Name)
		}
	}
	for _, want := range []string{"v1 namespaces", "v1 configmaps", "v1 secrets", "v1 services/status", "apps/v1 deployments",
		"apps/v1 deployments/status", "batch/v1 jobs", "policy/v1 poddisruptionbudgets", "rbac.authorization.k8s.io/v1 clusterroles",
		"apiextensions.k8s.io/v1 customresourcedefinitions"} {
		if !slices.Contains(got, want) {
			t.Errorf("discovery lacks %q; has %q", want, got)
		}
	}
	v, err := clientset(t, f.Clusters()[1]).Discovery().ServerVersion()
	if err != nil || !strings.HasPrefix(v.GitVersion, "v1.36.0") {
		t.Errorf("version %v, %v", v, err)
	}
}

func TestObjectLifecycle(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	ctx := t.Context()
	cs := clientset(t, f.Clusters()[0])
	cms := cs.CoreV1().ConfigMaps("team")

	_, err := cms.Create(ctx, configMap("orphan", nil), metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("creating in a missing namespace: %v, want NotFound", err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a, err := cms.Create(ctx, configMap("a", map[string]string{"tier": "web"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.UID == "" || a.ResourceVersion == "" || a.CreationTimestamp.IsZero() || a.Generation != 1 {
		t.Errorf("server fields not set: %+v", a.ObjectMeta)
	}
	if _, err := cms.Create(ctx, configMap("a", nil), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("creating twice: %v, want AlreadyExists", err)
	}
	if _, err := cms.Create(ctx, configMap("b", map[string]string{"tier": "db"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	generated, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
	if err != nil || !strings.HasPrefix(generated.Name, "gen-") || len(generated.Name) != len("gen-")+5 {
		t.Errorf("generateName gave %q, %v", generated.GetName(), err)
	}

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "tier=web"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "a" || list.ResourceVersion == "" {
		t.Fatalf("list by label: %+v, %v", list, err)
	}
	byName, err := cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=b"})
	if err != nil || len(byName.Items) != 1 || byName.Items[0].Name != "b" {
		t.Fatalf("list by name: %+v, %v", byName, err)
	}

	a.Data = map[string]string{"k": "v1"}
	updated, err := cms.Update(ctx, a, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion == a.ResourceVersion {
		t.Fatalf("update: %v (resourceVersion %s -> %s)", err, a.ResourceVersion, updated.GetResourceVersion())
	}
	a.Data = map[string]string{"k": "v2"} // still carries the old resourceVersion
	if _, err := cms.Update(ctx, a, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update of a stale version: %v, want Conflict", err)
	}
	if err := cms.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}

	if _, err := clientset(t, f.Clusters()[1]).CoreV1().ConfigMaps("team").Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("another cluster sees the object: %v", err)
	}

	if err := cs.CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Clusters()[0].Get(configMaps, "team", "a"); ok {
		t.Error("deleting the namespace left its objects")
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "kube-system", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("deleting kube-system: %v, want Forbidden", err)
	}
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestAuthentication(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	a, b := f.Clusters()[0], f.Clusters()[1]
	for name, token := range map[string]string{"no token": "", "a wrong token": "not-a-token", "another cluster's token": b.Token()} {
		cfg := restConfig(t, a)
		cfg.BearerToken = token
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
		if !apierrors.IsUnauthorized(err) {
			t.Errorf("%s: %v, want Unauthorized", name, err)
		}
	}
}

func TestCertificates(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	a, b := f.Clusters()[0], f.Clusters()[1]

	cfg := restConfig(t, a)
	cfg.Host = b.URL()
	_, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerVersion()
	var hostErr x509.HostnameError
	if !errors.As(err, &hostErr) {
		t.Errorf("cluster a's kubeconfig pointed at cluster b: %v, want a certificate name mismatch", err)
	}

	// Without the kubeconfig's server name, a cluster's certificate verifies for its address.
	plain := &rest.Config{Host: b.URL(), BearerToken: b.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: restConfig(t, b).CAData}}
	if _, err := kubernetes.NewForConfigOrDie(plain).Discovery().ServerVersion(); err != nil {
		t.Errorf("plain config of cluster b: %v", err)
	}
}

func TestLatency(t *testing.T) {
	const latency = 100 * time.Millisecond
	f := startFleet(t, Options{Clusters: 1, Latency: latency})
	cs := clientset(t, f.Clusters()[0])
	start := time.Now()
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < latency {
		t.Errorf("answered in %s, sooner than the latency %s", took, latency)
	}
}
