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

package helm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// credentials turns registryCredentialsConfig into Credentials, reading its Secrets from the
// management cluster. The credentials Secret holds either "username" and "password" keys or a
// Docker config (under Key, ".dockerconfigjson" or "config.json"); the CA Secret holds "ca.crt".
func (d *Deployer) credentials(ctx context.Context, hc configv1beta1.HelmChart, call *deployCall) (*Credentials, error) {
	rc := hc.RegistryCredentialsConfig
	passAll := hc.Options != nil && hc.Options.PassCredentialsAll
	cacheTokens := hc.Options != nil && hc.Options.EnableClientCache
	if rc == nil {
		if passAll || cacheTokens {
			return &Credentials{PassCredentialsAll: passAll, CacheTokens: cacheTokens}, nil
		}
		return nil, nil
	}
	creds := &Credentials{InsecureSkipTLSVerify: rc.InsecureSkipTLSVerify, PlainHTTP: rc.PlainHTTP, PassCredentialsAll: passAll,
		CacheTokens: cacheTokens}
	if ref := rc.CredentialsSecretRef; ref != nil {
		secret, err := d.readSecret(ctx, call, "registry credentials", ref)
		if err != nil {
			return nil, err
		}
		if creds.Username, creds.Password, err = userPassword(secret, rc.Key, hc.RepositoryURL); err != nil {
			return nil, err
		}
	}
	if ref := rc.CASecretRef; ref != nil {
		secret, err := d.readSecret(ctx, call, "registry credentials", ref)
		if err != nil {
			return nil, err
		}
		if creds.CA = secret.Data["ca.crt"]; len(creds.CA) == 0 {
			return nil, permanent(fmt.Errorf("%w: Secret %s/%s has no ca.crt", ErrInvalidSpec, ref.Namespace, ref.Name))
		}
	}
	return creds, nil
}

// readSecret reads a Secret a chart names, with the call's reader (SecretsFrom) when it has one.
func (d *Deployer) readSecret(ctx context.Context, call *deployCall, what string, ref *corev1.SecretReference) (*corev1.Secret, error) {
	secrets, as := d.secrets, ""
	if call != nil && call.secrets != nil {
		secrets, as = call.secrets, call.secretsAs
	}
	if secrets == nil {
		return nil, permanent(fmt.Errorf("%w: %s Secret %s/%s: the deployer has no management cluster client",
			ErrInvalidSpec, what, ref.Namespace, ref.Name))
	}
	if ref.Namespace == "" || ref.Name == "" {
		return nil, permanent(fmt.Errorf("%w: %s Secret needs a namespace and a name", ErrInvalidSpec, what))
	}
	var secret corev1.Secret
	if err := secrets.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &secret); err != nil {
		return nil, fmt.Errorf("reading %s Secret %s/%s%s: %w", what, ref.Namespace, ref.Name, as, err)
	}
	return &secret, nil
}

// userPassword reads a username and password from a Secret, either as plain keys or from the
// Docker config entry of the repository's host.
func userPassword(secret *corev1.Secret, key, repoURL string) (string, string, error) {
	if u, ok := secret.Data["username"]; ok {
		return string(u), string(secret.Data["password"]), nil
	}
	var raw []byte
	for _, k := range []string{key, corev1.DockerConfigJsonKey, "config.json"} {
		if k != "" && len(secret.Data[k]) > 0 {
			raw = secret.Data[k]
			break
		}
	}
	bad := func(why string) error {
		return permanent(fmt.Errorf("%w: registry credentials Secret %s/%s: %s", ErrInvalidSpec, secret.Namespace, secret.Name, why))
	}
	if raw == nil {
		return "", "", bad("it holds neither username/password nor a Docker config")
	}
	var cfg struct {
		Auths map[string]struct {
			Username string `json:"username"`
			Password string `json:"password"`
			Auth     string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return "", "", bad("the Docker config is not JSON: " + err.Error())
	}
	host := repoURL
	if u, err := url.Parse(strings.Replace(repoURL, "oci://", "https://", 1)); err == nil {
		host = u.Host
	}
	for server, entry := range cfg.Auths {
		if server != host && !strings.Contains(server, "//"+host) {
			continue
		}
		if entry.Username != "" {
			return entry.Username, entry.Password, nil
		}
		decoded, err := base64.StdEncoding.DecodeString(entry.Auth)
		if user, pass, ok := strings.Cut(string(decoded), ":"); err == nil && ok {
			return user, pass, nil
		}
	}
	return "", "", bad("its Docker config has no entry for " + host)
}
