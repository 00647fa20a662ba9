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
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// KubeconfigSecret says where a managed cluster's kubeconfig is: a Secret in the management
// cluster and the data key that holds it.
type KubeconfigSecret struct {
	Namespace string
	Name      string
	// Key is the data key holding the kubeconfig; empty means the Secret's first key in sorted
	// order (the SveltosCluster convention when spec.kubeconfigKeyName is unset).
	Key string
}

// String returns "<namespace>/<name>", the form messages name the Secret by.
func (s KubeconfigSecret) String() string { return s.Namespace + "/" + s.Name }

// SveltosClusterKubeconfig returns where a SveltosCluster's kubeconfig is: the Secret
// spec.kubeconfigName, or "<name>-sveltos-kubeconfig", next to the SveltosCluster, under the key
// spec.kubeconfigKeyName, or else the Secret's first key. Ways of connecting that need no Secret
// (pull mode, workload identity) are not supported and return a ClusterError.
func SveltosClusterKubeconfig(c *libv1beta1.SveltosCluster) (KubeconfigSecret, error) {
	ref := RefOf(c)
	switch {
	case c.Spec.PullMode:
		return KubeconfigSecret{}, clusterErrorf(ref, ReasonUnsupported,
			"the cluster is in pull mode, which Stagecoach does not support: register it with a kubeconfig Secret and pullMode false")
	case c.Spec.WorkloadIdentity != nil:
		return KubeconfigSecret{}, clusterErrorf(ref, ReasonUnsupported,
			"the cluster is reached through %s workload identity, which Stagecoach does not support yet: register it with a kubeconfig Secret instead",
			c.Spec.WorkloadIdentity.Provider)
	}
	return KubeconfigSecret{Namespace: c.Namespace, Name: c.KubeconfigSecretName(), Key: c.Spec.KubeconfigKeyName}, nil
}

// MemberClusterKubeconfig returns where a MemberCluster's kubeconfig is: the Secret named
// "<namespace>/<name>" by its stagecoach.dev/kubeconfig-secret annotation, under the key
// "kubeconfig". Kubefleet itself needs no such Secret (its member agents pull), so a
// MemberCluster without the annotation is a ClusterError saying how to add it.
func MemberClusterKubeconfig(c *clusterv1beta1.MemberCluster) (KubeconfigSecret, error) {
	ref := RefOf(c)
	value, ok := c.Annotations[clusterv1beta1.KubeconfigSecretAnnotation]
	if !ok {
		return KubeconfigSecret{}, clusterErrorf(ref, ReasonKubeconfigNotFound,
			"the MemberCluster has no %s annotation: Stagecoach pushes to member clusters and needs it to name the Secret, as <namespace>/<name>, that holds the cluster's kubeconfig under the key %q",
			clusterv1beta1.KubeconfigSecretAnnotation, clusterv1beta1.KubeconfigSecretKey)
	}
	ns, name, ok := strings.Cut(value, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return KubeconfigSecret{}, clusterErrorf(ref, ReasonKubeconfigNotFound,
			"the %s annotation is %q: it must name a Secret as <namespace>/<name>",
			clusterv1beta1.KubeconfigSecretAnnotation, value)
	}
	return KubeconfigSecret{Namespace: ns, Name: name, Key: clusterv1beta1.KubeconfigSecretKey}, nil
}

// locateKubeconfig reads the cluster object and says where its kubeconfig is.
func locateKubeconfig(ctx context.Context, reader client.Reader, ref ClusterRef) (KubeconfigSecret, error) {
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	switch ref.Kind {
	case KindSveltosCluster:
		c := &libv1beta1.SveltosCluster{}
		if err := reader.Get(ctx, key, c); err != nil {
			return KubeconfigSecret{}, err
		}
		return SveltosClusterKubeconfig(c)
	case KindMemberCluster:
		c := &clusterv1beta1.MemberCluster{}
		if err := reader.Get(ctx, key, c); err != nil {
			return KubeconfigSecret{}, err
		}
		return MemberClusterKubeconfig(c)
	}
	return KubeconfigSecret{}, fmt.Errorf("%s: unknown cluster kind %q", ref, ref.Kind)
}

// readKubeconfig reads the Secret at loc, returning it and the kubeconfig it holds.
func readKubeconfig(ctx context.Context, reader client.Reader, ref ClusterRef, loc KubeconfigSecret) (*corev1.Secret, []byte, KubeconfigSecret, error) {
	secret := &corev1.Secret{}
	err := reader.Get(ctx, types.NamespacedName{Namespace: loc.Namespace, Name: loc.Name}, secret)
	if apierrors.IsNotFound(err) {
		return nil, nil, loc, clusterErrorf(ref, ReasonKubeconfigNotFound, "kubeconfig Secret %s does not exist", loc)
	}
	if err != nil {
		return nil, nil, loc, fmt.Errorf("reading kubeconfig Secret %s: %w", loc, err)
	}
	loc, data, err := pickKubeconfig(ref, loc, secret)
	return secret, data, loc, err
}

// pickKubeconfig returns the kubeconfig held by secret under loc.Key, or under its first key in
// sorted order when loc.Key is empty; the returned location names the key actually read.
func pickKubeconfig(ref ClusterRef, loc KubeconfigSecret, secret *corev1.Secret) (KubeconfigSecret, []byte, error) {
	keys := make([]string, 0, len(secret.Data))
	for k := range secret.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if loc.Key == "" {
		if len(keys) == 0 {
			return loc, nil, clusterErrorf(ref, ReasonKubeconfigNotFound, "kubeconfig Secret %s has no data", loc)
		}
		loc.Key = keys[0]
	}
	data, ok := secret.Data[loc.Key]
	if !ok {
		have := "it has no keys"
		if len(keys) > 0 {
			have = "its keys are " + strings.Join(keys, ", ")
		}
		return loc, nil, clusterErrorf(ref, ReasonKubeconfigNotFound, "kubeconfig Secret %s has no key %q (%s)", loc, loc.Key, have)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return loc, nil, clusterErrorf(ref, ReasonKubeconfigInvalid, "key %q of kubeconfig Secret %s is empty", loc.Key, loc)
	}
	return loc, data, nil
}

// kubeconfigConfig turns the kubeconfig read from loc into a rest.Config, or into a ClusterError
// naming the Secret and key.
func kubeconfigConfig(ref ClusterRef, loc KubeconfigSecret, data []byte) (*rest.Config, error) {
	cfg, err := RESTConfigFromKubeconfig(data)
	if err != nil {
		return nil, clusterErrorf(ref, ReasonKubeconfigInvalid, "key %q of Secret %s does not hold a usable kubeconfig: %v", loc.Key, loc, err)
	}
	return cfg, nil
}

// RESTConfigFromKubeconfig parses a kubeconfig and returns the rest.Config of its current
// context (or of its only context when it sets none).
//
// The kubeconfig must carry everything in itself: it is written by whoever may create Secrets,
// and Stagecoach must not read its own files or run commands on their behalf. Kubeconfigs that
// read files (certificate-authority, client-certificate, client-key, tokenFile), run an exec
// plugin or use an auth provider are refused.
//
// Errors describe what is wrong without quoting the kubeconfig's values: they may name
// contexts, clusters, users, the server URL, file paths and commands, never credentials.
func RESTConfigFromKubeconfig(data []byte) (*rest.Config, error) {
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, errors.New(describeParseError(data, err))
	}
	contextName, err := chooseContext(raw)
	if err != nil {
		return nil, err
	}
	if err := checkSelfContained(raw, contextName); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, contextName, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		// clientcmd's validation messages can quote values such as a proxy URL with a password
		// in it; what is commonly wrong was checked above with safe messages.
		return nil, fmt.Errorf("context %q does not validate as a kubeconfig", contextName)
	}
	return cfg, nil
}

// yamlLine finds the line number in a YAML syntax error; the rest of such errors can quote the
// offending text.
var yamlLine = regexp.MustCompile(`yaml: line (\d+):`)

func describeParseError(data []byte, err error) string {
	if decoded, derr := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(data))); derr == nil {
		if raw, lerr := clientcmd.Load(decoded); lerr == nil && len(raw.Clusters) > 0 {
			return "the value is base64-encoded twice: put the kubeconfig itself under stringData, or base64-encode it only once under data"
		}
	}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return "YAML syntax error at line " + m[1]
	}
	return "it is not a kubeconfig (YAML or JSON with apiVersion v1 and kind Config)"
}

func chooseContext(raw *clientcmdapi.Config) (string, error) {
	if raw.CurrentContext != "" {
		if _, ok := raw.Contexts[raw.CurrentContext]; !ok {
			return "", fmt.Errorf("its current-context %q is not one of its contexts", raw.CurrentContext)
		}
		return raw.CurrentContext, nil
	}
	switch len(raw.Contexts) {
	case 0:
		return "", errors.New("it has no contexts")
	case 1:
		for name := range raw.Contexts {
			return name, nil
		}
	}
	return "", fmt.Errorf("it has %d contexts and no current-context: set current-context", len(raw.Contexts))
}

// checkSelfContained checks the context's cluster and user, refusing whatever would make the
// controller read a local file, run a command, or talk to a server it cannot verify.
func checkSelfContained(raw *clientcmdapi.Config, contextName string) error {
	kctx := raw.Contexts[contextName]
	cluster, ok := raw.Clusters[kctx.Cluster]
	if !ok {
		return fmt.Errorf("context %q uses cluster %q, which is not defined", contextName, kctx.Cluster)
	}
	if cluster.Server == "" {
		return fmt.Errorf("cluster %q has no server", kctx.Cluster)
	}
	if cluster.InsecureSkipTLSVerify {
		return fmt.Errorf("cluster %q skips TLS verification (insecure-skip-tls-verify), and Stagecoach sends credentials only to a server it has verified: embed the server's CA as certificate-authority-data", kctx.Cluster)
	}
	if cluster.CertificateAuthority != "" {
		return fmt.Errorf("cluster %q reads its CA from the file %s: embed it as certificate-authority-data", kctx.Cluster, cluster.CertificateAuthority)
	}
	if kctx.AuthInfo == "" {
		return nil
	}
	user, ok := raw.AuthInfos[kctx.AuthInfo]
	if !ok {
		return fmt.Errorf("context %q uses user %q, which is not defined", contextName, kctx.AuthInfo)
	}
	for _, f := range []struct{ field, path, embedded string }{
		{"client-certificate", user.ClientCertificate, "client-certificate-data"},
		{"client-key", user.ClientKey, "client-key-data"},
		{"tokenFile", user.TokenFile, "token"},
	} {
		if f.path != "" {
			return fmt.Errorf("user %q reads %s from the file %s: embed it as %s", kctx.AuthInfo, f.field, f.path, f.embedded)
		}
	}
	if user.Exec != nil {
		return fmt.Errorf("user %q runs the command %q to get credentials, and Stagecoach runs no commands from kubeconfigs: use a token or a client certificate", kctx.AuthInfo, user.Exec.Command)
	}
	if user.AuthProvider != nil {
		return fmt.Errorf("user %q uses the %q auth provider, which Stagecoach does not support: use a token or a client certificate", kctx.AuthInfo, user.AuthProvider.Name)
	}
	return nil
}
