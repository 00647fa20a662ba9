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

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func TestParseClusterSpec(t *testing.T) {
	for _, tc := range []struct {
		in      string
		name    string
		labels  map[string]string
		wantErr string
	}{
		{in: "a", name: "a", labels: map[string]string{}},
		{in: "a:env=dev", name: "a", labels: map[string]string{"env": "dev"}},
		{in: "member1:environment=canary,order=2", name: "member1", labels: map[string]string{"environment": "canary", "order": "2"}},
		{in: "a:env=", name: "a", labels: map[string]string{"env": ""}},
		{in: "A", wantErr: "lowercase DNS label"},
		{in: "mgmt", wantErr: "reserved"},
		{in: "a:env", wantErr: "not key=value"},
		{in: "", wantErr: "lowercase DNS label"},
	} {
		spec, err := ParseClusterSpec(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || spec.Name != tc.name || len(spec.Labels) != len(tc.labels) {
			t.Errorf("%q: got %+v, %v", tc.in, spec, err)
		}
		for k, v := range tc.labels {
			if spec.Labels[k] != v {
				t.Errorf("%q: label %s=%q, want %q", tc.in, k, spec.Labels[k], v)
			}
		}
	}
}

// TestSandboxLifecycle brings a fleet up, proves a Deployment becomes Available on a managed
// cluster, crashes part of it and recovers it with a second `up`, and tears it down.
func TestSandboxLifecycle(t *testing.T) {
	kubeBin, err := FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "fleet")
	specs := []ClusterSpec{
		{Name: "a", Labels: map[string]string{"env": "dev"}},
		{Name: "b", Labels: map[string]string{"env": "prod"}},
	}
	opts := Options{Dir: dir, Clusters: specs, KubeBinDir: kubeBin, Log: testr.New(t)}
	fleet, err := Up(ctx, opts)
	t.Cleanup(func() { _ = Down(dir) })
	if err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"mgmt", "a", "b"} {
		if _, err := os.Stat(filepath.Join(dir, name+".kubeconfig")); err != nil {
			t.Errorf("kubeconfig of %s: %v", name, err)
		}
	}
	a := kubernetes.NewForConfigOrDie(fleet.Managed[0].Config)
	node, err := a.CoreV1().Nodes().Get(ctx, "a-node", metav1.GetOptions{})
	if err != nil || !nodeReady(node) {
		t.Fatalf("node of cluster a not Ready: %v", err)
	}
	checkRegistration(ctx, t, fleet)
	waitDeploymentAvailable(ctx, t, a, "web")

	// A crash: etcd and one apiserver die. `up` again restarts them and the data survives.
	st, err := loadState(filepath.Join(dir, "sandbox.json"))
	if err != nil {
		t.Fatal(err)
	}
	var killed []*process
	for _, p := range st.Processes {
		if p.Name == "etcd" || p.Name == "a-kube-apiserver" {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
			killed = append(killed, p)
		}
	}
	if err := pollUntilTimeout(ctx, 10*time.Second, func(context.Context) bool { return !anyAlive(killed) }); err != nil {
		t.Fatal("killed processes did not exit")
	}
	if _, err := Up(ctx, opts); err != nil {
		t.Fatalf("recovering: %v", err)
	}
	if _, err := a.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{}); err != nil {
		t.Errorf("deployment lost across recovery: %v", err)
	}

	// kwok restarted: the node it plays is freed for the new one at once, not once the old
	// one's Lease expires, and pods go on becoming ready.
	before, err := a.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "a-node", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kwok := killProcess(ctx, t, dir, "a-kwok")
	if _, err := Up(ctx, opts); err != nil {
		t.Fatalf("restarting kwok: %v", err)
	}
	after, err := a.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "a-node", metav1.GetOptions{})
	if err == nil && ptr.Deref(after.Spec.HolderIdentity, "") == ptr.Deref(before.Spec.HolderIdentity, "") {
		t.Errorf("the node Lease is still held by the kwok killed (pid %d): %s", kwok.PID, ptr.Deref(after.Spec.HolderIdentity, ""))
	} else if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	waitDeploymentAvailable(ctx, t, a, "web-after-kwok")

	// A different set of clusters in the same directory is refused with the command to run.
	other := opts
	other.Clusters = specs[:1]
	if _, err := Up(ctx, other); err == nil || !strings.Contains(err.Error(), "stagecoach sandbox down --dir") {
		t.Errorf("up with other clusters: %v, want an error naming the down command", err)
	}

	st, err = loadState(filepath.Join(dir, "sandbox.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Down(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Processes {
		p.exited = nil // check through /proc, as a separate `down` command would
		if p.alive() {
			t.Errorf("%s (pid %d) still runs after down", p.Name, p.PID)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sandbox.json")); !os.IsNotExist(err) {
		t.Errorf("state left behind after down: %v", err)
	}
}

// killProcess SIGKILLs the sandbox's process name and waits until it has exited.
func killProcess(ctx context.Context, t *testing.T, dir, name string) *process {
	t.Helper()
	st, err := loadState(filepath.Join(dir, "sandbox.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Processes {
		if p.Name == name {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
			if err := pollUntilTimeout(ctx, 10*time.Second, func(context.Context) bool { return !p.alive() }); err != nil {
				t.Fatalf("%s did not exit", name)
			}
			return p
		}
	}
	t.Fatalf("no process %s", name)
	return nil
}

var (
	sveltosClusterGVR = libv1beta1.GroupVersion.WithResource("sveltosclusters")
	memberClusterGVR  = clusterv1beta1.GroupVersion.WithResource("memberclusters")
)

func checkRegistration(ctx context.Context, t *testing.T, fleet *Fleet) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(fleet.Management.Config)
	sc, err := dyn.Resource(sveltosClusterGVR).Namespace("a").Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("SveltosCluster a/a: %v", err)
	}
	if sc.GetLabels()["env"] != "dev" {
		t.Errorf("SveltosCluster a/a labels %v, want env=dev", sc.GetLabels())
	}
	mc, err := dyn.Resource(memberClusterGVR).Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("MemberCluster b: %v", err)
	}
	if mc.GetLabels()["env"] != "prod" {
		t.Errorf("MemberCluster b labels %v, want env=prod", mc.GetLabels())
	}
	if got := mc.GetAnnotations()[clusterv1beta1.KubeconfigSecretAnnotation]; got != "b/b-sveltos-kubeconfig" {
		t.Errorf("MemberCluster b names the kubeconfig Secret %q, want b/b-sveltos-kubeconfig", got)
	}
	if identity, _, _ := unstructured.NestedString(mc.Object, "spec", "identity", "name"); identity != AdminUser {
		t.Errorf("MemberCluster b has identity %q, want %s", identity, AdminUser)
	}
	mgmt := kubernetes.NewForConfigOrDie(fleet.Management.Config)
	secret, err := mgmt.CoreV1().Secrets("a").Get(ctx, "a-sveltos-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("kubeconfig Secret: %v", err)
	}
	if strings.Contains(string(secret.Data[clusterv1beta1.KubeconfigSecretKey]), "insecure-skip-tls-verify") {
		t.Error("the registered kubeconfig skips TLS verification")
	}
}

func waitDeploymentAvailable(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	labels := map[string]string{"app": name}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := pollUntilTimeout(ctx, time.Minute, func(ctx context.Context) bool {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				return d.Status.AvailableReplicas == 2
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("deployment %s never became Available: %v", name, err)
	}
}
