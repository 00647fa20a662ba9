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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// authority is the certificate authority of a simulated fleet. One CA for all clusters keeps
// start-up cheap; each cluster still has its own serving certificate, valid only for its own
// address.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// pem is the CA certificate, as kubeconfigs carry it.
	pem []byte
}

const certValidity = 365 * 24 * time.Hour

func newAuthority() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "fleetsim-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue makes a serving certificate for one cluster, valid for its IP address only.
func (a *authority) issue(name string, ip net.IP) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     a.cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{ip},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func randomSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// tlsConfig serves each connection the certificate of the cluster whose address it arrived on:
// Go clients send no SNI when they connect to an IP address, so the local address is what says
// which cluster is meant.
func (f *Fleet) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			c := f.clusterAt(hello.Conn.LocalAddr())
			switch {
			case c == nil:
				return nil, errors.New("no simulated cluster has this address")
			case c.DownMode() == Refuse:
				// A listener shared by every cluster cannot refuse one cluster's connections
				// in the kernel, so a refusing cluster fails the handshake instead: the client
				// gets an error at once ("remote error: tls: internal error") and, unlike after a
				// reset or EOF, client-go does not retry it, as it does not retry "connection
				// refused".
				return nil, fmt.Errorf("%s is down (Refuse)", c.name)
			}
			return c.certificate()
		},
	}
}

// certificate returns the cluster's serving certificate, issuing it on first use: a fleet of
// 20,000 clusters must not pay for 20,000 certificates before it serves.
func (c *Cluster) certificate() (*tls.Certificate, error) {
	if cert := c.cert.Load(); cert != nil {
		return cert, nil
	}
	cert, err := c.fleet.ca.issue(c.name, clusterAddr(c.index).AsSlice())
	if err != nil {
		return nil, fmt.Errorf("issuing the serving certificate of %s: %w", c.name, err)
	}
	// Two handshakes racing may both issue one; either is valid, the first stored wins.
	if !c.cert.CompareAndSwap(nil, cert) {
		return c.cert.Load(), nil
	}
	return cert, nil
}
