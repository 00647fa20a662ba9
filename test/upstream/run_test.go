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

package upstream

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// stillCannotRun lists, by file, the documents upstream's CRDs accept that Stagecoach cannot
// run yet, and why. The test fails when a document not listed here cannot run, and when one
// listed here runs: the list is always exactly what is left.
var stillCannotRun = map[string]string{
	"sveltos/040-clusterprofile-cosign-keyless-example.yaml": "keyless cosign signatures: they need Fulcio and Rekor, and Stagecoach verifies offline with a public key",
	"sveltos/041-clusterprofile-mychart.yaml":                "keyless cosign signatures: they need Fulcio and Rekor, and Stagecoach verifies offline with a public key",
	"sveltos/104-clusterprofile-kyverno.yaml":                "setRefs: ClusterSets and Sets, Sveltos kinds Stagecoach does not serve",
}

// invalidEverywhere lists the documents that no Kubernetes API server accepts, upstream's
// included, whatever the CRDs: upstream documentation bugs. They must be rejected here too.
var invalidEverywhere = map[string]string{
	"sveltos/065-profile-profile-a.yaml": "metadata.name profile_a is not a valid object name (no underscores)",
	"sveltos/107-clusterprofile-sveltos-8ric1wghsf04cu8i1387.yaml": "an owner reference without a uid: an object an EventTrigger generated, " +
		"copied into the documentation with its generated metadata",
	"sveltos/113-sveltoscluster-your-cluster-name.yaml": "its namespace is a placeholder, YOUR-CLUSTER-NAMESPACE, not a valid name",
}

// notSupported is how Stagecoach words a refusal: a field it does not implement, named.
var notSupported = regexp.MustCompile(`(?i)not supported|unsupported`)

// settleTimeout bounds how long every document together may take to reach an outcome.
const settleTimeout = 5 * time.Minute

// TestSveltosCorpus applies every Sveltos document of the corpus, pointed at the corpus
// cluster, and checks that each is accepted and that none fails as "not supported". A document's
// references to ConfigMaps, Secrets or charts on the internet fail as missing or unreachable,
// which is expected here: what matters is that nothing is refused.
func TestSveltosCorpus(t *testing.T) {
	dir := corpusDir(t)
	docs := corpusDocuments(t, dir, "sveltos/")
	c := testenv.Client(t)
	ctx := t.Context()
	registerCorpusCluster(t, c, docs)

	cannot := map[string]string{}
	var running []*applied
	for _, d := range docs {
		a, err := apply(ctx, c, dir, d)
		if why, ok := invalidEverywhere[d.file]; ok {
			if err == nil {
				t.Errorf("%s is accepted, though no API server should accept it (%s)", d.file, why)
			}
			continue
		}
		if err != nil {
			cannot[d.file] = err.Error()
			continue
		}
		running = append(running, a)
	}
	t.Logf("%d documents, %d accepted and running", len(docs), len(running))
	start := time.Now()
	defer func() { t.Logf("outcomes in %s", time.Since(start).Round(time.Second)) }()

	deadline := time.Now().Add(settleTimeout)
	for _, a := range running {
		for {
			settled, msgs, err := a.outcome(ctx, c)
			if err == nil && settled {
				if m := refusal(msgs); m != "" {
					cannot[a.doc.file] = m
				}
				break
			}
			if time.Now().After(deadline) {
				cannot[a.doc.file] = fmt.Sprintf("no outcome within %s: %v %s", settleTimeout, err, strings.Join(msgs, "; "))
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}

	files := slices.Sorted(func(yield func(string) bool) {
		for f := range cannot {
			if !yield(f) {
				return
			}
		}
	})
	for _, f := range files {
		if _, known := stillCannotRun[f]; known {
			t.Logf("still cannot run %s: %s", f, cannot[f])
		} else {
			t.Errorf("%s cannot run: %s", f, cannot[f])
		}
	}
	for f, why := range stillCannotRun {
		if _, ok := cannot[f]; !ok {
			t.Errorf("%s runs now: take it off stillCannotRun (%s)", f, why)
		}
	}
	t.Logf("%d of %d documents run; %d cannot; %d are invalid everywhere", len(docs)-len(cannot)-len(invalidEverywhere), len(docs)-len(invalidEverywhere),
		len(cannot), len(invalidEverywhere))
}

// refusal returns the first message that says something is not supported.
func refusal(msgs []string) string {
	for _, m := range msgs {
		if notSupported.MatchString(m) {
			return m
		}
	}
	return ""
}

// registerCorpusCluster registers the corpus cluster again in the namespace of every Profile
// document, since a Profile selects only clusters of its own namespace.
func registerCorpusCluster(t *testing.T, c client.Client, docs []document) {
	t.Helper()
	kubeconfig, err := os.ReadFile(testenv.Fleet.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]bool{}
	for _, d := range docs {
		if d.kind != "Profile" {
			continue
		}
		ns := cmp(d.namespace, "default")
		if done[ns] {
			continue
		}
		done[ns] = true
		err := registration.Register(t.Context(), c, registration.Cluster{Namespace: ns, Name: "corpus",
			Labels: map[string]string{corpusLabel: "true"}, Kubeconfig: kubeconfig, Manager: "upstream-corpus", CreateNamespace: true})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func cmp(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// applied is a document running on the fleet, renamed and pointed at the corpus cluster.
type applied struct {
	doc document
	obj *unstructured.Unstructured
}

// apply checks that the API server accepts the document as written (a server-side dry run with
// strict field validation, as check.sh does), then creates it for real, renamed after its file
// and pointed at the corpus cluster.
func apply(ctx context.Context, c client.Client, dir string, d document) (*applied, error) {
	data, err := os.ReadFile(filepath.Join(dir, d.file))
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	if obj.GetKind() == "Profile" && obj.GetNamespace() == "" {
		obj.SetNamespace("default") // as kubectl apply does
	}
	if ns := obj.GetNamespace(); ns != "" {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	if err := whileUnavailable(ctx, func() error {
		return c.Create(ctx, obj.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	}); err != nil {
		return nil, fmt.Errorf("rejected: %w", err)
	}
	run := obj.DeepCopy()
	run.SetName(fileNumber(d.file) + "-" + obj.GetName())
	pointAtCorpus(run)
	if err := whileUnavailable(ctx, func() error { return c.Create(ctx, run) }); err != nil {
		return nil, fmt.Errorf("rejected once pointed at the corpus cluster: %w", err)
	}
	return &applied{doc: d, obj: run}, nil
}

// whileUnavailable retries create for up to a minute while the API server answers 503: its
// admission policies answer so for a kind whose schema they are (re)loading, as after CRDs
// change, which says nothing of the document.
func whileUnavailable(ctx context.Context, create func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := create()
		if !apierrors.IsServiceUnavailable(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// fileNumber gives "u042" for "sveltos/042-….yaml": names unique across documents that share
// a name.
func fileNumber(file string) string {
	base := filepath.Base(file)
	num, _, _ := strings.Cut(base, "-")
	return "u" + num
}

// pointAtCorpus makes a profile or promotion select the corpus cluster and nothing else. A
// profile's dependsOn names profiles of other documents, which would hold it forever; this test
// is about what a document deploys, so dependencies are dropped.
func pointAtCorpus(obj *unstructured.Unstructured) {
	selector := map[string]any{"matchLabels": map[string]any{corpusLabel: "true"}}
	if spec, ok := obj.Object["spec"].(map[string]any); !ok || spec == nil {
		obj.Object["spec"] = map[string]any{} // a sample with an empty spec
	}
	switch obj.GetKind() {
	case "ClusterProfile", "Profile":
		_ = unstructured.SetNestedField(obj.Object, selector, "spec", "clusterSelector")
		unstructured.RemoveNestedField(obj.Object, "spec", "clusterRefs")
		unstructured.RemoveNestedField(obj.Object, "spec", "dependsOn")
	case "ClusterPromotion":
		stages, _, _ := unstructured.NestedSlice(obj.Object, "spec", "stages")
		for i := range stages {
			if s, ok := stages[i].(map[string]any); ok {
				s["clusterSelector"] = selector
			}
		}
		_ = unstructured.SetNestedSlice(obj.Object, stages, "spec", "stages")
	}
}
