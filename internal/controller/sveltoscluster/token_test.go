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

package sveltoscluster

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

const certKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://10.0.0.1:6443", certificate-authority-data: "Q0E="}
users:
- name: u
  user: {client-certificate-data: "Q0VSVA==", client-key-data: "S0VZ"}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: ns}
current-context: x
`

func TestWithToken(t *testing.T) {
	data, err := withToken([]byte(certKubeconfig), "new-token")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if u := cfg.AuthInfos["u"]; u == nil || u.Token != "new-token" || len(u.ClientCertificateData) > 0 || len(u.ClientKeyData) > 0 {
		t.Errorf("user u = %+v; want the token alone", u)
	}
	if c := cfg.Clusters["c"]; c == nil || c.Server != "https://10.0.0.1:6443" || string(c.CertificateAuthorityData) != "CA" {
		t.Errorf("cluster c = %+v; want it unchanged", c)
	}
	if _, err := withToken([]byte("secret-looking: [garbage"), "t"); err == nil || strings.Contains(err.Error(), "garbage") {
		t.Errorf("a broken kubeconfig gives %v; want an error that does not quote it", err)
	}
}

func TestRenewalTiming(t *testing.T) {
	if got := renewAfter(time.Hour); got != 50*time.Minute {
		t.Errorf("renewAfter(1h) = %s", got)
	}
	if got := renewAfter(5 * time.Minute); got != 5*time.Minute {
		t.Errorf("renewAfter(5m) = %s", got)
	}
	opt := &libv1beta1.TokenRequestRenewalOption{RenewTokenRequestInterval: metav1.Duration{Duration: time.Hour}}
	if got := tokenLife(opt); got != 90*time.Minute {
		t.Errorf("default token life for 1h = %s", got)
	}
	opt.TokenDuration = metav1.Duration{Duration: time.Minute}
	if got := tokenLife(opt); got != minTokenLife {
		t.Errorf("a 1m token life = %s, want the API server's minimum", got)
	}
}
