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

package dashboard

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestPauseClusterAction: a cluster's page offers to pause it; paused, it offers to resume it,
// and says what was done.
func TestPauseClusterAction(t *testing.T) {
	cl := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "eu-1"}}
	srv, c := newTestServer(t, nil, cl)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	jar := &cookies{}
	get := func() string {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+"/clusters/prod/eu-1", nil)
		jar.add(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	post := func(action string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/clusters/prod/eu-1/"+action, nil)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/clusters/prod/eu-1" {
			t.Fatalf("%s: %s to %q", action, resp.Status, resp.Header.Get("Location"))
		}
		jar.list = resp.Cookies()
	}
	paused := func() bool {
		got := &libv1beta1.SveltosCluster{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(cl), got); err != nil {
			t.Fatal(err)
		}
		return got.Spec.Paused
	}
	if html := get(); !strings.Contains(html, `action="/clusters/prod/eu-1/pause"`) {
		t.Fatalf("no pause on the cluster's page:\n%s", html)
	}
	post("pause")
	if html := get(); !paused() || !strings.Contains(html, "paused SveltosCluster prod/eu-1: nothing is deployed to it and no stage waits for it") ||
		!strings.Contains(html, `action="/clusters/prod/eu-1/resume"`) || !strings.Contains(html, `class="state s-paused"`) {
		t.Fatalf("after pause (paused %t):\n%s", paused(), html)
	}
	post("resume")
	if html := get(); paused() || !strings.Contains(html, "resumed SveltosCluster prod/eu-1") {
		t.Fatalf("after resume (paused %t):\n%s", paused(), html)
	}
}

// cookies carries the flash cookie from an action to the next page.
type cookies struct{ list []*http.Cookie }

func (j *cookies) add(req *http.Request) {
	for _, c := range j.list {
		req.AddCookie(c)
	}
	j.list = nil
}

// TestPausedGroup: a stage's paused clusters come in a group of their own, after the rest.
func TestPausedGroup(t *testing.T) {
	st := &view.Stage{Name: "prod", State: view.Progressing, Clusters: []view.Cluster{
		{Name: "prod/b", State: view.Paused}, {Name: "prod/a", State: view.Succeeded}, {Name: "prod/c", State: view.Pending}}}
	var labels []string
	for _, g := range groups(st, sveltosClusterHref, false) {
		labels = append(labels, fmt.Sprintf("%s: %d", g.Label, len(g.Tiles)))
	}
	if want := []string{"Not started: 1", "Done: 1", "Paused: left out, not waited for: 1"}; !slices.Equal(labels, want) {
		t.Errorf("groups %v, want %v", labels, want)
	}
}
