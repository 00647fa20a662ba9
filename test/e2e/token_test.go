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

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestTokenRenewal: a SveltosCluster whose kubeconfig holds a ServiceAccount token, with
// tokenRequestRenewalOption, gets a new token written into a renewed copy of its kubeconfig in
// the controller's namespace (its own Secret is left as it is: the controller writes Secrets in
// its namespace only), stays reachable with it, and no token shows in its status or Events; the
// copy goes with the cluster.
func TestTokenRenewal(t *testing.T) {
	t.Parallel()
	const ns, sa = "e2e-token", "renewer"
	var target = testenv.Fleet.Managed[0]
	for _, c := range testenv.Fleet.Managed {
		if c.Name == "prod" {
			target = c
		}
	}
	prod := kubernetes.NewForConfigOrDie(target.Config)
	ctx := t.Context()
	// The ServiceAccount may request tokens for itself: what renewal needs, and nothing else.
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, ResourceNames: []string{sa}, Verbs: []string{"create"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: sa},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: ns}}},
	}
	remote, err := client.New(target.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := remote.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	secs := int64(3600)
	tr, err := prod.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := tr.Status.Token
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: target.Config.Host, CertificateAuthorityData: target.Config.CAData}
	kc.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: first}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: sa}
	kc.CurrentContext = "c"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}

	mgmt := testenv.Client(t)
	if err := mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "renewed" + libv1beta1.KubeconfigSecretNameSuffix, Namespace: ns},
		Data: map[string][]byte{"kubeconfig": data}}
	if err := mgmt.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	cluster := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Name: "renewed", Namespace: ns}}
	cluster.Spec.TokenRequestRenewalOption = &libv1beta1.TokenRequestRenewalOption{
		RenewTokenRequestInterval: metav1.Duration{Duration: 5 * time.Second},
		TokenDuration:             metav1.Duration{Duration: 10 * time.Minute},
	}
	if err := mgmt.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mgmt.Delete(context.Background(), cluster)
		_ = mgmt.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})

	// The renewed copy gets a new token, which the cluster accepts as the ServiceAccount's.
	var renewed string
	loc := fleet.RenewedKubeconfig(testenv.ChartNamespace, fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: ns, Name: "renewed"})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		s := &corev1.Secret{}
		if err := mgmt.Get(ctx, client.ObjectKey{Namespace: loc.Namespace, Name: loc.Name}, s); err != nil {
			return err
		}
		cfg, err := clientcmd.Load(s.Data[fleet.RenewedKey])
		if err != nil {
			return err
		}
		if u := cfg.AuthInfos[sa]; u == nil || u.Token == "" || u.Token == first {
			return errors.New("the kubeconfig Secret still holds the first token")
		}
		renewed = cfg.AuthInfos[sa].Token
		rc, err := clientcmd.NewDefaultClientConfig(*cfg, nil).ClientConfig()
		if err != nil {
			return err
		}
		review, err := kubernetes.NewForConfigOrDie(rc).AuthenticationV1().SelfSubjectReviews().Create(ctx,
			&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("the renewed kubeconfig does not work: %w", err)
		}
		if want := "system:serviceaccount:" + ns + ":" + sa; review.Status.UserInfo.Username != want {
			return fmt.Errorf("the renewed kubeconfig authenticates as %s, want %s", review.Status.UserInfo.Username, want)
		}
		return nil
	})

	// The cluster stays reachable through renewals, and no token is written where people read.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		c := &libv1beta1.SveltosCluster{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(cluster), c); err != nil {
			return err
		}
		if !c.Status.Ready || c.Status.ConnectionStatus != libv1beta1.ConnectionHealthy || c.Status.LastReconciledTokenRequestAt == "" {
			return fmt.Errorf("cluster status %+v", c.Status)
		}
		status, _ := json.Marshal(c.Status)
		if strings.Contains(string(status), first) || strings.Contains(string(status), renewed) {
			t.Fatal("the status quotes a token")
		}
		return nil
	})
	events := &corev1.EventList{}
	if err := mgmt.List(ctx, events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	renewals := 0
	for _, e := range events.Items {
		if strings.Contains(e.Message, first) || strings.Contains(e.Message, renewed) {
			t.Errorf("event %s quotes a token", e.Name)
		}
		if e.Reason == "TokenRenewed" {
			renewals++
		}
	}
	if renewals == 0 {
		t.Errorf("no TokenRenewed event among %d", len(events.Items))
	}
	own := &corev1.Secret{}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(secret), own); err != nil || string(own.Data["kubeconfig"]) != string(data) {
		t.Errorf("the cluster's own kubeconfig Secret was changed (%v)", err)
	}
	if err := mgmt.Delete(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		err := mgmt.Get(ctx, client.ObjectKey{Namespace: loc.Namespace, Name: loc.Name}, &corev1.Secret{})
		if err == nil {
			return errors.New("the renewed kubeconfig outlives its cluster")
		}
		return client.IgnoreNotFound(err)
	})
}

// TestTokenRenewalOfAUser: a kubeconfig that authenticates as a user, not a ServiceAccount,
// cannot be renewed without saNamespace and saName; the cluster says so, and its kubeconfig
// is left as it was.
func TestTokenRenewalOfAUser(t *testing.T) {
	t.Parallel()
	const ns = "e2e-token-user"
	var target = testenv.Fleet.Managed[0]
	data, err := os.ReadFile(target.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mgmt := testenv.Client(t)
	ctx := t.Context()
	if err := mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "user" + libv1beta1.KubeconfigSecretNameSuffix, Namespace: ns},
		Data: map[string][]byte{"kubeconfig": data}}
	if err := mgmt.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	cluster := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Name: "user", Namespace: ns}}
	cluster.Spec.TokenRequestRenewalOption = &libv1beta1.TokenRequestRenewalOption{
		RenewTokenRequestInterval: metav1.Duration{Duration: time.Second},
	}
	if err := mgmt.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mgmt.Delete(context.Background(), cluster)
		_ = mgmt.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		c := &libv1beta1.SveltosCluster{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(cluster), c); err != nil {
			return err
		}
		if c.Status.FailureMessage == nil || !strings.Contains(*c.Status.FailureMessage, "not as a ServiceAccount; set saNamespace and saName") {
			return fmt.Errorf("cluster status %+v", c.Status)
		}
		return nil
	})
	testenv.ExpectEvent(t, timeout, mgmt, cluster, "TokenRenewalFailed")
	s := &corev1.Secret{}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(secret), s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data["kubeconfig"]) != string(data) {
		t.Error("the kubeconfig was changed")
	}
}
