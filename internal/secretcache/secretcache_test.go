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

package secretcache

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const timeout = 30 * time.Second

// countingReader counts the reads that reach the API server.
type countingReader struct {
	client.Reader
	gets atomic.Int64
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets.Add(1)
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestReadsOnlyWhatIsAskedFor: a Secret's content is read from the API server once per version,
// follows edits, is listed by label, and is let go when the Secret is deleted.
func TestReadsOnlyWhatIsAskedFor(t *testing.T) {
	admin := testenv.Client(t)
	var sc *Client
	live := &countingReader{}
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		live.Reader = mgr.GetAPIReader()
		var err error
		sc, err = newClient(context.Background(), mgr.GetCache(), mgr.GetClient(), live)
		return err
	})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "credentials", Namespace: "default", Labels: map[string]string{"app": "x"}},
		Data: map[string][]byte{"token": []byte("one")}}
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unread", Namespace: "default"}}
	for _, s := range []*corev1.Secret{secret, other} {
		if err := admin.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), s) })
	}
	key := client.ObjectKeyFromObject(secret)
	token := func(want string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			got := &corev1.Secret{}
			if err := sc.Get(ctx, key, got); err != nil {
				return err
			}
			if string(got.Data["token"]) != want {
				return fmt.Errorf("token %q, want %q", got.Data["token"], want)
			}
			return nil
		}
	}
	testenv.Eventually(t, timeout, token("one"))
	reads := live.gets.Load()
	for range 5 {
		if err := token("one")(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n := live.gets.Load() - reads; n != 0 {
		t.Errorf("%d reads of an unchanged Secret reached the API server", n)
	}

	secret.Data["token"] = []byte("two")
	if err := admin.Update(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, token("two"))

	var list corev1.SecretList
	if err := sc.List(t.Context(), &list, client.InNamespace("default"), client.MatchingLabels{"app": "x"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || string(list.Items[0].Data["token"]) != "two" {
		t.Errorf("listed %+v", list.Items)
	}
	if n := sc.Held(); n != 1 {
		t.Errorf("holds %d Secrets, want only the one read", n)
	}

	if err := admin.Delete(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if n := sc.Held(); n != 0 {
			return fmt.Errorf("still holds %d Secrets", n)
		}
		if err := sc.Get(ctx, key, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			return errors.Join(errors.New("the deleted Secret still reads"), err)
		}
		return nil
	})
}
