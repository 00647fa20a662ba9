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
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// Token renewal, as upstream times it: a token is renewed ten minutes before the renewal
// interval ends (at the interval when it is shorter than that), and lives, unless
// tokenDuration says otherwise, for the interval plus thirty minutes, so that a renewal missed
// by a short outage does not cut the cluster off.
const (
	renewEarly        = 10 * time.Minute
	defaultTokenExtra = 30 * time.Minute
	// minTokenLife is the shortest token the API server issues.
	minTokenLife = 10 * time.Minute
)

const reasonTokenRenewed, reasonTokenRenewalFailed = "TokenRenewed", "TokenRenewalFailed"

func renewAfter(interval time.Duration) time.Duration {
	if interval > renewEarly {
		return interval - renewEarly
	}
	return interval
}

func tokenLife(opt *libv1beta1.TokenRequestRenewalOption) time.Duration {
	life := opt.TokenDuration.Duration
	if life <= 0 {
		life = opt.RenewTokenRequestInterval.Duration + defaultTokenExtra
	}
	return max(life, minTokenLife)
}

// renewToken, for a cluster with tokenRequestRenewalOption whose renewal is due, requests a new
// token for the ServiceAccount in the managed cluster and writes the kubeconfig, with the new
// token in place of the old credentials, into a Secret of the controller's namespace, which is
// used in place of the cluster's own (writeRenewed). It returns how long until the next renewal
// is due and, when the renewal failed, why; messages never quote the token or the kubeconfig.
func (r *Reconciler) renewToken(ctx context.Context, ref fleet.ClusterRef, c *libv1beta1.SveltosCluster) (time.Duration, string) {
	opt := c.Spec.TokenRequestRenewalOption
	if opt == nil {
		return 0, ""
	}
	interval := opt.RenewTokenRequestInterval.Duration
	if interval <= 0 {
		return 0, "spec.tokenRequestRenewalOption.renewTokenRequestInterval must be longer than zero"
	}
	last := c.CreationTimestamp.Time
	if t, err := time.Parse(time.RFC3339, c.Status.LastReconciledTokenRequestAt); err == nil {
		last = t
	}
	if wait := last.Add(renewAfter(interval)).Sub(r.now()); wait > 0 {
		return wait, ""
	}
	expires, err := r.writeToken(ctx, ref, c, opt)
	if err != nil {
		return min(interval, time.Minute), "tokenRequestRenewalOption: " + err.Error()
	}
	now := r.now()
	c.Status.LastReconciledTokenRequestAt = now.UTC().Format(time.RFC3339)
	r.recorder.Eventf(c, nil, corev1.EventTypeNormal, reasonTokenRenewed, "RenewToken",
		"Renewed the token, kept in Secret %s; it expires at %s",
		fleet.RenewedKubeconfig(r.fleet.Namespace(), ref), expires.UTC().Format(time.RFC3339))
	next := renewAfter(interval)
	if life := expires.Sub(now); life > 0 && life < next {
		// The API server may shorten a token's life: renew before it ends all the same.
		next = life * 4 / 5
	}
	return next, ""
}

// writeToken requests the token and rewrites the kubeconfig Secret; it returns when the token
// expires.
func (r *Reconciler) writeToken(ctx context.Context, ref fleet.ClusterRef, c *libv1beta1.SveltosCluster,
	opt *libv1beta1.TokenRequestRenewalOption) (time.Time, error) {
	loc, err := fleet.SveltosClusterKubeconfig(c)
	if err != nil {
		return time.Time{}, err
	}
	secret := &corev1.Secret{}
	if err := r.reader.Get(ctx, types.NamespacedName{Namespace: loc.Namespace, Name: loc.Name}, secret); err != nil {
		return time.Time{}, fmt.Errorf("reading kubeconfig Secret %s: %w", loc, err)
	}
	key := loc.Key
	if key == "" {
		keys := make([]string, 0, len(secret.Data))
		for k := range secret.Data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(keys) == 0 {
			return time.Time{}, fmt.Errorf("kubeconfig Secret %s has no data", loc)
		}
		key = keys[0]
	}
	if opt.KubeconfigKeyName != nil && *opt.KubeconfigKeyName != "" && *opt.KubeconfigKeyName != key {
		return time.Time{}, fmt.Errorf("kubeconfigKeyName %q is not the key the cluster's kubeconfig is read from (%q); "+
			"Stagecoach renews the kubeconfig it reads: leave kubeconfigKeyName out or set spec.kubeconfigKeyName to the same key",
			*opt.KubeconfigKeyName, key)
	}
	remote, err := r.fleet.Get(ctx, ref)
	if err != nil {
		return time.Time{}, err
	}
	ns, name := opt.SANamespace, opt.SAName
	if ns == "" || name == "" {
		if ns, name, err = serviceAccountOf(ctx, remote); err != nil {
			return time.Time{}, err
		}
	}
	secs := int64(tokenLife(opt).Seconds())
	tr, err := remote.Core.ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &secs}}, metav1.CreateOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", ns, name, err)
	}
	data, err := withToken(secret.Data[key], tr.Status.Token)
	if err != nil {
		return time.Time{}, fmt.Errorf("key %q of Secret %s: %w", key, loc, err)
	}
	rloc, err := r.writeRenewed(ctx, ref, secret.Data[key], data)
	if err != nil {
		return time.Time{}, fmt.Errorf("writing the renewed kubeconfig Secret %s: %w", rloc, err)
	}
	return tr.Status.ExpirationTimestamp.Time, nil
}

// writeRenewed keeps the renewed kubeconfig in a Secret of the controller's namespace, which the
// fleet cache prefers to the cluster's own while that one holds the kubeconfig it was made from
// (from): the controller writes Secrets in its own namespace only.
func (r *Reconciler) writeRenewed(ctx context.Context, ref fleet.ClusterRef, from, renewed []byte) (fleet.KubeconfigSecret, error) {
	loc := fleet.RenewedKubeconfig(r.fleet.Namespace(), ref)
	secret := &corev1.Secret{}
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: loc.Namespace, Name: loc.Name}, secret)
	if err != nil && !apierrors.IsNotFound(err) {
		return loc, err
	}
	create := apierrors.IsNotFound(err)
	secret.Namespace, secret.Name = loc.Namespace, loc.Name
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	secret.Annotations[fleet.RenewedFromAnnotation] = fleet.KubeconfigDigest(from)
	secret.Annotations[fleet.RenewedForAnnotation] = ref.Kind + " " + ref.Namespace + "/" + ref.Name
	secret.Data = map[string][]byte{fleet.RenewedKey: renewed}
	if create {
		return loc, r.client.Create(ctx, secret, client.FieldOwner("stagecoach-token-renewal"))
	}
	// The Secret's resourceVersion makes this an optimistic write: an edit made in between
	// wins, and the renewal is tried again.
	return loc, r.client.Update(ctx, secret, client.FieldOwner("stagecoach-token-renewal"))
}

// forgetRenewed deletes the renewed kubeconfig of a cluster that is gone: it is in another
// namespace than the cluster, which therefore cannot own it.
func (r *Reconciler) forgetRenewed(ctx context.Context, ref fleet.ClusterRef) error {
	if r.fleet.Namespace() == "" {
		return nil
	}
	loc := fleet.RenewedKubeconfig(r.fleet.Namespace(), ref)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: loc.Namespace, Name: loc.Name}}
	return client.IgnoreNotFound(r.client.Delete(ctx, secret))
}

// serviceAccountOf asks the managed cluster whom the kubeconfig authenticates as.
func serviceAccountOf(ctx context.Context, remote *fleet.Remote) (namespace, name string, err error) {
	cs, err := kubernetes.NewForConfig(remote.Config)
	if err != nil {
		return "", "", err
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", "", fmt.Errorf("asking the cluster whom the kubeconfig authenticates as: %w", err)
	}
	user := review.Status.UserInfo.Username
	parts := strings.Split(user, ":")
	if len(parts) != 4 || parts[0] != "system" || parts[1] != "serviceaccount" {
		return "", "", fmt.Errorf("the kubeconfig authenticates as %q, not as a ServiceAccount; set saNamespace and saName", user)
	}
	return parts[2], parts[3], nil
}

// withToken returns the kubeconfig with the credentials of its current context replaced by
// token; the server and its CA stay as they were.
func withToken(kubeconfig []byte, token string) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		// The parser's message may quote the kubeconfig: it is not passed on.
		return nil, errors.New("the kubeconfig cannot be parsed")
	}
	ctxName := cfg.CurrentContext
	if ctxName == "" && len(cfg.Contexts) == 1 {
		for n := range cfg.Contexts {
			ctxName = n
		}
	}
	kctx, ok := cfg.Contexts[ctxName]
	if !ok {
		return nil, errors.New("the kubeconfig has no current context")
	}
	user := kctx.AuthInfo
	if user == "" {
		user = "stagecoach"
		kctx.AuthInfo = user
	}
	if cfg.AuthInfos == nil {
		cfg.AuthInfos = map[string]*clientcmdapi.AuthInfo{}
	}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	return clientcmd.Write(*cfg)
}
