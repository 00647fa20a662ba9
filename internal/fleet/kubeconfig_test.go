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
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// secretToken is the credential in test kubeconfigs; no error message may ever contain it.
const secretToken = "s3cr3t-t0ken-never-shown"

// testKubeconfig returns a self-contained kubeconfig for server, trusting caPEM (or skipping TLS
// verification when it is nil), authenticating with secretToken; edit may change it first.
func testKubeconfig(t testing.TB, server string, caPEM []byte, edit func(*clientcmdapi.Config)) []byte {
	t.Helper()
	if caPEM == nil {
		caPEM = otherCA(t) // a server nothing connects to still needs a CA: none is unverified
	}
	cfg := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: server, CertificateAuthorityData: caPEM}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {Token: secretToken}},
		Contexts:       map[string]*clientcmdapi.Context{"ctx": {Cluster: "c", AuthInfo: "u"}},
		CurrentContext: "ctx",
	}
	if edit != nil {
		edit(&cfg)
	}
	data, err := clientcmd.Write(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSveltosClusterKubeconfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    libv1beta1.SveltosClusterSpec
		want    KubeconfigSecret
		wantErr string
	}{
		{name: "conventional name, first key", want: KubeconfigSecret{Namespace: "ns", Name: "prod-sveltos-kubeconfig"}},
		{name: "named Secret", spec: libv1beta1.SveltosClusterSpec{KubeconfigName: "creds"},
			want: KubeconfigSecret{Namespace: "ns", Name: "creds"}},
		{name: "named key", spec: libv1beta1.SveltosClusterSpec{KubeconfigKeyName: "value"},
			want: KubeconfigSecret{Namespace: "ns", Name: "prod-sveltos-kubeconfig", Key: "value"}},
		{name: "pull mode", spec: libv1beta1.SveltosClusterSpec{PullMode: true}, wantErr: "pull mode"},
		{name: "workload identity", spec: libv1beta1.SveltosClusterSpec{WorkloadIdentity: &libv1beta1.WorkloadIdentityConfig{Provider: "AWS"}},
			wantErr: "AWS workload identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "prod"}, Spec: tc.spec}
			got, err := SveltosClusterKubeconfig(c)
			checkErr(t, err, tc.wantErr)
			if tc.wantErr == "" && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMemberClusterKubeconfig(t *testing.T) {
	for _, tc := range []struct {
		name       string
		annotation *string
		want       KubeconfigSecret
		wantErr    string
	}{
		{name: "annotated", annotation: ptr.To("fleet/m1-kubeconfig"),
			want: KubeconfigSecret{Namespace: "fleet", Name: "m1-kubeconfig", Key: "kubeconfig"}},
		{name: "no annotation", wantErr: "has no stagecoach.dev/kubeconfig-secret annotation"},
		{name: "no namespace", annotation: ptr.To("m1-kubeconfig"), wantErr: `annotation is "m1-kubeconfig": it must name a Secret as <namespace>/<name>`},
		{name: "empty namespace", annotation: ptr.To("/m1"), wantErr: "<namespace>/<name>"},
		{name: "empty name", annotation: ptr.To("fleet/"), wantErr: "<namespace>/<name>"},
		{name: "too many parts", annotation: ptr.To("a/b/c"), wantErr: "<namespace>/<name>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}
			if tc.annotation != nil {
				c.Annotations = map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: *tc.annotation}
			}
			got, err := MemberClusterKubeconfig(c)
			checkErr(t, err, tc.wantErr)
			if tc.wantErr == "" && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if ce, ok := AsClusterError(err); err != nil && (!ok || ce.Reason != ReasonKubeconfigNotFound || ce.Ref != RefOf(c)) {
				t.Errorf("error %#v is not a KubeconfigNotFound ClusterError for %s", err, RefOf(c))
			}
		})
	}
}

func TestPickKubeconfig(t *testing.T) {
	ref := ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: "prod"}
	for _, tc := range []struct {
		name    string
		key     string
		data    map[string][]byte
		wantKey string
		wantErr string
	}{
		{name: "named key", key: "value", data: map[string][]byte{"a": []byte("x"), "value": []byte("y")}, wantKey: "value"},
		{name: "only key", data: map[string][]byte{"kubeconfig": []byte("y")}, wantKey: "kubeconfig"},
		{name: "first key in sorted order", data: map[string][]byte{"value": []byte("y"), "kubeconfig": []byte("x"), "z": []byte("z")}, wantKey: "kubeconfig"},
		{name: "missing key", key: "nope", data: map[string][]byte{"value": []byte("y"), "kubeconfig": []byte("x")},
			wantErr: `kubeconfig Secret ns/creds has no key "nope" (its keys are kubeconfig, value)`},
		{name: "missing key, no data", key: "nope", wantErr: `has no key "nope" (it has no keys)`},
		{name: "no data", wantErr: "kubeconfig Secret ns/creds has no data"},
		{name: "empty value", key: "kubeconfig", data: map[string][]byte{"kubeconfig": []byte(" \n")},
			wantErr: `key "kubeconfig" of kubeconfig Secret ns/creds is empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "creds"}, Data: tc.data}
			loc, data, err := pickKubeconfig(ref, KubeconfigSecret{Namespace: "ns", Name: "creds", Key: tc.key}, secret)
			checkErr(t, err, tc.wantErr)
			if tc.wantErr != "" {
				return
			}
			if loc.Key != tc.wantKey || string(data) != string(tc.data[tc.wantKey]) {
				t.Errorf("picked key %q (%q), want %q", loc.Key, data, tc.wantKey)
			}
		})
	}
}

func TestRESTConfigFromKubeconfig(t *testing.T) {
	valid := testKubeconfig(t, "https://10.0.0.1:6443", nil, nil)
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{name: "valid", data: valid},
		{name: "only context, none current", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.CurrentContext = ""
		})},
		{name: "not YAML", data: []byte("token: " + secretToken + "\n  : : :\n\tfoo"), wantErr: "YAML syntax error at line"},
		{name: "not a kubeconfig", data: []byte(`["` + secretToken + `"]`), wantErr: "it is not a kubeconfig"},
		{name: "base64 twice", data: []byte(base64.StdEncoding.EncodeToString(valid)), wantErr: "base64-encoded twice"},
		{name: "no contexts", data: []byte("apiVersion: v1\nkind: Config\n"), wantErr: "it has no contexts"},
		{name: "unknown current context", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.CurrentContext = "other"
		}), wantErr: `its current-context "other" is not one of its contexts`},
		{name: "several contexts, none current", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.CurrentContext = ""
			c.Contexts["ctx2"] = c.Contexts["ctx"]
		}), wantErr: "it has 2 contexts and no current-context"},
		{name: "undefined cluster", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.Contexts["ctx"].Cluster = "nope"
		}), wantErr: `context "ctx" uses cluster "nope", which is not defined`},
		{name: "no server", data: testKubeconfig(t, "", nil, nil), wantErr: `cluster "c" has no server`},
		{name: "undefined user", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.Contexts["ctx"].AuthInfo = "nope"
		}), wantErr: `context "ctx" uses user "nope", which is not defined`},
		{name: "TLS verification skipped", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.Clusters["c"].InsecureSkipTLSVerify = true
		}), wantErr: `cluster "c" skips TLS verification (insecure-skip-tls-verify)`},
		{name: "CA file", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.Clusters["c"].CertificateAuthority = "/etc/ca.crt"
		}), wantErr: "reads its CA from the file /etc/ca.crt: embed it as certificate-authority-data"},
		{name: "token file", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.AuthInfos["u"] = &clientcmdapi.AuthInfo{TokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token"}
		}), wantErr: `user "u" reads tokenFile from the file /var/run/secrets/kubernetes.io/serviceaccount/token`},
		{name: "client key file", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte("x"), ClientKey: "/key.pem"}
		}), wantErr: "reads client-key from the file /key.pem: embed it as client-key-data"},
		{name: "exec plugin", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.AuthInfos["u"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "aws", Args: []string{secretToken}, APIVersion: "client.authentication.k8s.io/v1"}}
		}), wantErr: `user "u" runs the command "aws" to get credentials`},
		{name: "auth provider", data: testKubeconfig(t, "https://10.0.0.1:6443", nil, func(c *clientcmdapi.Config) {
			c.AuthInfos["u"] = &clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "oidc", Config: map[string]string{"refresh-token": secretToken}}}
		}), wantErr: `user "u" uses the "oidc" auth provider`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := RESTConfigFromKubeconfig(tc.data)
			checkErr(t, err, tc.wantErr)
			if err == nil && (cfg.Host != "https://10.0.0.1:6443" || cfg.BearerToken != secretToken) {
				t.Errorf("config for %s with token %q, want https://10.0.0.1:6443 and the kubeconfig's token", cfg.Host, cfg.BearerToken)
			}
		})
	}
}

// checkErr fails unless err contains want (or is nil when want is empty), and fails whenever err
// shows the test credential.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("no error, want one containing %q", want)
	case err != nil && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q, want one containing %q", err, want)
	case err != nil && strings.Contains(err.Error(), secretToken):
		t.Fatalf("error %q shows the kubeconfig's credential", err)
	}
}
