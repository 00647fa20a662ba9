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
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/version"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// newProbeClient builds the bare REST client probes use: a few hundred bytes per cluster, where
// a Remote's full set of clients costs a hundred times more.
func newProbeClient(cfg *rest.Config) (*rest.RESTClient, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	// One request per probe interval needs no client-side rate limiter.
	cfg.QPS = -1
	// HTTP/1.1: a released probe's connection is then gone with the answer. An HTTP/2 client
	// connection closed after its last stream stays in memory until its idle timer fires
	// (90 s), which for a fleet probed a hundred times a second is thousands of them.
	cfg.NextProtos = []string{"http/1.1"}
	return rest.UnversionedRESTClientFor(cfg)
}

// probeVersion asks the API server for /version. Any answer but a version is a *ClusterError
// saying why; a ctx cancelled by the caller is returned as it is, since it says nothing about the
// cluster.
func probeVersion(ctx context.Context, rc *rest.RESTClient, ref ClusterRef, host string, timeout time.Duration, release bool) (string, error) {
	probeCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := rc.Get().AbsPath("/version")
	if release {
		// The connection is closed once the answer is read.
		req = req.SetHeader("Connection", "close")
	}
	body, err := req.Do(probeCtx).Raw()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		return "", clusterErrorf(ref, ReasonUnreachable, "%s", describeProbeError(host, timeout, err))
	}
	var info version.Info
	if err := json.Unmarshal(body, &info); err != nil || info.GitVersion == "" {
		return "", clusterErrorf(ref, ReasonUnreachable, "%s answered GET /version with something other than a Kubernetes version: is it a Kubernetes API server?", host)
	}
	return info.GitVersion, nil
}

// describeProbeError says in a sentence why a probe of host failed. It names the server and the
// cause, never request headers or credentials.
func describeProbeError(host string, timeout time.Duration, err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		switch s.Code {
		case http.StatusUnauthorized:
			return fmt.Sprintf("%s rejected the kubeconfig's credentials (401 Unauthorized): they may have expired or been revoked", host)
		case http.StatusForbidden:
			return fmt.Sprintf("%s refused to tell the kubeconfig's user its version (403 Forbidden)", host)
		}
		msg := s.Message
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return fmt.Sprintf("%s answered GET /version with HTTP %d: %s", host, s.Code, msg)
	}
	return fmt.Sprintf("cannot reach %s: %s", host, networkCause(timeout, err))
}

func networkCause(timeout time.Duration, err error) string {
	var (
		netErr      net.Error
		dnsErr      *net.DNSError
		unknownCA   x509.UnknownAuthorityError
		wrongHost   x509.HostnameError
		badCert     x509.CertificateInvalidError
		notTLS      tls.RecordHeaderError
		urlErr      *url.Error
		description string
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the server"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host"
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve %s", dnsErr.Name)
	case errors.As(err, &unknownCA):
		return "its certificate is not signed by the kubeconfig's certificate-authority-data"
	case errors.As(err, &wrongHost):
		return wrongHost.Error()
	case errors.As(err, &badCert):
		return badCert.Error()
	case errors.As(err, &notTLS):
		return "it does not speak TLS (is the server URL http rather than https?)"
	case errors.As(err, &urlErr):
		// Without the URL and method, which the message starts with already.
		description = urlErr.Err.Error()
	default:
		description = err.Error()
	}
	return description
}

// serverURL returns the server URL without any user information it might carry.
func serverURL(host string) string {
	u, err := url.Parse(host)
	if err != nil || u.User == nil {
		return host
	}
	u.User = nil
	return u.String()
}
