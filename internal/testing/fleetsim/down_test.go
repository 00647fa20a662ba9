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
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// serverVersion asks a cluster its version through a client with the given timeout.
func askVersion(t *testing.T, c *Cluster, timeout time.Duration) (time.Duration, error) {
	t.Helper()
	cfg := restConfig(t, c)
	cfg.Timeout = timeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = cs.Discovery().ServerVersion()
	return time.Since(start), err
}

func TestDownModes(t *testing.T) {
	f := startFleet(t, Options{Clusters: 3})
	c := f.Clusters()[2]
	if _, err := askVersion(t, c, 5*time.Second); err != nil {
		t.Fatal(err)
	}

	c.SetDown(Refuse)
	took, err := askVersion(t, c, 5*time.Second)
	if err == nil || took > 2*time.Second {
		t.Errorf("refusing cluster: answered in %s with %v, want a quick connection error", took, err)
	}

	c.SetDown(Hang)
	took, err = askVersion(t, c, time.Second)
	var netErr net.Error
	timedOut := errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
	if err == nil || !timedOut || took < time.Second {
		t.Errorf("hanging cluster: answered in %s with %v, want a timeout after 1s", took, err)
	}
	if c := f.Clusters()[1]; c.DownMode() != Up {
		t.Errorf("cluster %s is %s, only %s went down", c.Name(), c.DownMode(), f.Clusters()[2].Name())
	}

	c.SetDown(HangWrites)
	if _, err := askVersion(t, c, 5*time.Second); err != nil {
		t.Errorf("a cluster hanging writes does not answer a read: %v", err)
	}
	cfg := restConfig(t, c)
	cfg.Timeout = time.Second
	start := time.Now()
	_, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if took := time.Since(start); err == nil || took < time.Second {
		t.Errorf("a cluster hanging writes answered a create in %s with %v, want a timeout after 1s", took, err)
	}

	c.SetDown(Up)
	if _, err := askVersion(t, c, 5*time.Second); err != nil {
		t.Errorf("back up: %v", err)
	}
}

// TestHungConnectionsAreFreed: a hanging cluster holds a connection until the client closes it.
func TestHungConnectionsAreFreed(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	c := f.Clusters()[0]
	c.SetDown(Hang)
	conn, err := net.Dial("tcp", c.Host())
	if err != nil {
		t.Fatal(err)
	}
	held := func(want int) func() error {
		return func() error {
			if n := f.hung.count(); n != want {
				return fmt.Errorf("%d connections held, want %d", n, want)
			}
			return nil
		}
	}
	eventually(t, 5*time.Second, held(1))
	_ = conn.Close()
	eventually(t, 5*time.Second, held(0))
}

// TestDownWhileConnected: a cluster that goes down fails the requests on connections already
// open, as the client's next request to a dead server would.
func TestDownWhileConnected(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	c := f.Clusters()[0]
	cfg := restConfig(t, c)
	cfg.Timeout = time.Second
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	c.SetDown(Refuse)
	if _, err := cs.Discovery().ServerVersion(); err == nil {
		t.Error("a refusing cluster answered on an open connection")
	}
	c.SetDown(Hang)
	start := time.Now()
	if _, err := cs.Discovery().ServerVersion(); err == nil || time.Since(start) < time.Second {
		t.Errorf("a hanging cluster answered on an open connection: %v after %s", err, time.Since(start))
	}
	c.SetDown(Up)
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		t.Errorf("back up: %v", err)
	}
}
