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

package e2e

// The ClusterPromotion scenarios of the seed documents 000–003, run on the shared fleet. Each
// test starts from the seed's manifest in testdata/seeds and changes only what the sandbox
// needs: its own names and release namespace, the local chart repository, delays of seconds
// instead of minutes, and the seeds' env values mapped onto the fleet's clusters.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// fleetEnv maps the env values the seeds select on to the fleet's: the seeds name environments
// development, uat and production, which the sandbox fleet calls dev, qa and prod. Stage names
// stay the seed's.
var fleetEnv = map[string]string{"development": "dev", "uat": "qa", "production": "prod"}

// seedPromotion reads a seed's ClusterPromotion from testdata/seeds, renamed so that the test
// has its own, with its stages' selectors mapped onto the fleet and its delays shortened.
func seedPromotion(t *testing.T, file, name string, delay time.Duration) *configv1beta1.ClusterPromotion {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/seeds", file))
	if err != nil {
		t.Fatal(err)
	}
	p := &configv1beta1.ClusterPromotion{}
	if err := yaml.Unmarshal(data, p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	p.Name = name
	for i := range p.Spec.Stages {
		s := &p.Spec.Stages[i]
		if env, ok := fleetEnv[s.ClusterSelector.MatchLabels["env"]]; ok {
			s.ClusterSelector.MatchLabels["env"] = env
		}
		if tr := s.Trigger; tr != nil && tr.Auto != nil && tr.Auto.Delay != nil {
			tr.Auto.Delay = &metav1.Duration{Duration: delay}
		}
		if tr := s.Trigger; tr != nil && tr.Manual != nil && tr.Manual.Delay != nil {
			tr.Manual.Delay = &metav1.Duration{Duration: delay}
		}
	}
	return p
}

// localCharts points the promotion's charts at the local repository and into ns.
func localCharts(t *testing.T, p *configv1beta1.ClusterPromotion, ns string) {
	t.Helper()
	for i := range p.Spec.ProfileSpec.HelmCharts {
		p.Spec.ProfileSpec.HelmCharts[i].RepositoryURL = repoURL(t)
		p.Spec.ProfileSpec.HelmCharts[i].ReleaseNamespace = ns
	}
}

// kyvernoVersion is the chart version the kyverno stand-in's ConfigMap shows on a cluster.
func kyvernoVersion(ctx context.Context, cs kubernetes.Interface, ns string) (string, error) {
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kyverno", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return cm.Data["chartVersion"], nil
}

func waitKyverno(t *testing.T, cluster, ns, version string) {
	t.Helper()
	cs := managed(t, cluster)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		v, err := kyvernoVersion(ctx, cs, ns)
		if err != nil {
			return fmt.Errorf("%s: %w", cluster, err)
		}
		if v != version {
			return fmt.Errorf("%s runs kyverno %s, want %s", cluster, v, version)
		}
		return nil
	})
}

func stageDescription(p *configv1beta1.ClusterPromotion, stage string) string {
	for _, s := range p.Status.Stages {
		if s.Name == stage && s.CurrentStatusDescription != nil {
			return *s.CurrentStatusDescription
		}
	}
	return ""
}

// waitStage waits until the promotion is at stage and the stage's description starts with want.
func waitStage(t *testing.T, name, stage, want string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		if d := stageDescription(p, stage); p.Status.CurrentStageName != stage || !strings.HasPrefix(d, want) {
			return fmt.Errorf("at stage %s; stage %s is %q, want %q", p.Status.CurrentStageName, stage, d, want)
		}
		return nil
	})
}

// waitPromoted waits until the promotion is Ready for its current generation, at its last stage.
func waitPromoted(t *testing.T, name string) *configv1beta1.ClusterPromotion {
	t.Helper()
	var got *configv1beta1.ClusterPromotion
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionReadyCondition)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != p.Generation ||
			p.Status.CurrentStageName != p.Spec.Stages[len(p.Spec.Stages)-1].Name {
			return fmt.Errorf("not Ready for generation %d: at stage %s, %+v", p.Generation, p.Status.CurrentStageName, c)
		}
		got = p
		return nil
	})
	return got
}

// expectAllProvisioned checks that a promoted promotion describes every stage as the seeds
// show it: "Successfully provisioned (<time>)". Ready and the last description are written
// together, and earlier stages' when they were left, so there is nothing to wait for.
func expectAllProvisioned(t *testing.T, p *configv1beta1.ClusterPromotion) {
	t.Helper()
	if len(p.Status.Stages) != len(p.Spec.Stages) {
		t.Errorf("status has %d stages, want %d: %+v", len(p.Status.Stages), len(p.Spec.Stages), p.Status.Stages)
	}
	for _, s := range p.Spec.Stages {
		if d := stageDescription(p, s.Name); !strings.HasPrefix(d, "Successfully provisioned (") {
			t.Errorf("promoted, but stage %s is described %q, want \"Successfully provisioned (<time>)\"", s.Name, d)
		}
	}
}

func profileAbsent(t *testing.T, name string) error {
	err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Name: name}, &configv1beta1.ClusterProfile{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("ClusterProfile %s exists (%v)", name, err)
}

// timeline records, in this process's clock, the first time each named thing was seen by the
// test's watches, so that the order of events on different clusters can be compared.
type timeline struct {
	mu    sync.Mutex
	start time.Time
	at    map[string]time.Time
}

func newTimeline() *timeline { return &timeline{start: time.Now(), at: map[string]time.Time{}} }

func (tl *timeline) mark(key string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if _, ok := tl.at[key]; !ok {
		tl.at[key] = time.Now()
	}
}

func (tl *timeline) when(key string) (time.Time, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	at, ok := tl.at[key]
	return at, ok
}

// String lists the events in order, as offsets from the timeline's start.
func (tl *timeline) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	keys := make([]string, 0, len(tl.at))
	for k := range tl.at {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return tl.at[keys[i]].Before(tl.at[keys[j]]) })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %8.3fs  %s", tl.at[k].Sub(tl.start).Seconds(), k)
	}
	return b.String()
}

// follow hands every event of w to on, from a goroutine, until the test ends.
func follow(t *testing.T, w watch.Interface, on func(watch.Event)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			on(ev)
		}
	}()
	t.Cleanup(func() { w.Stop(); <-done })
}

func watchClient(t *testing.T) client.WithWatch {
	t.Helper()
	c, err := client.NewWithWatch(testenv.Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// watchProvisioned marks "provisioned <profile> on <cluster>" when a ClusterSummary of the
// profile first reports its spec provisioned.
func watchProvisioned(t *testing.T, tl *timeline, profile string) {
	t.Helper()
	w, err := watchClient(t).Watch(context.Background(), &configv1beta1.ClusterSummaryList{},
		client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: profile})
	if err != nil {
		t.Fatal(err)
	}
	follow(t, w, func(ev watch.Event) {
		if cs, ok := ev.Object.(*configv1beta1.ClusterSummary); ok && ev.Type != watch.Deleted && cs.Provisioned() {
			tl.mark("provisioned " + profile + " on " + cs.Spec.ClusterName)
		}
	})
}

// watchConfigMapAdded marks "<name> added on <cluster>" when the ConfigMap appears on the
// managed cluster.
func watchConfigMapAdded(t *testing.T, tl *timeline, cluster, ns, name string) {
	t.Helper()
	w, err := managed(t, cluster).CoreV1().ConfigMaps(ns).Watch(context.Background(),
		metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	follow(t, w, func(ev watch.Event) {
		if ev.Type == watch.Added {
			tl.mark(name + " added on " + cluster)
		}
	})
}

// seed003Delay is the seed's 5m soak, shortened.
const seed003Delay = 2 * time.Second

// TestSeed003AutoRollout is seed 003's promotion "test": the kyverno chart with 3 replicas of
// every controller goes to staging, and after the soak to production, by itself.
func TestSeed003AutoRollout(t *testing.T) {
	t.Parallel()
	const ns = "e2e-seed003"
	p := seedPromotion(t, "003-clusterpromotion-test.yaml", "e2e-seed003", seed003Delay)
	localCharts(t, p, ns)
	if v := p.Spec.ProfileSpec.HelmCharts[0]; v.ChartVersion != "3.4.2" || !strings.Contains(v.Values, "replicas: 3") ||
		p.Spec.ProfileSpec.SyncMode != configv1beta1.SyncModeContinuous {
		t.Fatalf("not the seed's profile: %+v", p.Spec.ProfileSpec)
	}
	createPromotion(t, p)

	waitKyverno(t, "staging", ns, "3.4.2")
	waitKyverno(t, "prod", ns, "3.4.2")
	expectAllProvisioned(t, waitPromoted(t, p.Name))
	for _, cluster := range []string{"staging", "prod"} {
		for _, c := range []string{"admission", "background", "cleanup", "reports"} {
			d, err := managed(t, cluster).AppsV1().Deployments(ns).Get(t.Context(), "kyverno-"+c+"-controller", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if *d.Spec.Replicas != 3 {
				t.Errorf("%s: %s has %d replicas, want the seed's 3", cluster, d.Name, *d.Spec.Replicas)
			}
		}
	}
	// Production is installed only once staging was deployed and had soaked.
	staging, err := managed(t, "staging").CoreV1().ConfigMaps(ns).Get(t.Context(), "kyverno", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prod, err := managed(t, "prod").CoreV1().ConfigMaps(ns).Get(t.Context(), "kyverno", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gap := prod.CreationTimestamp.Sub(staging.CreationTimestamp.Time); gap < seed003Delay {
		t.Errorf("production got the release %s after staging, before staging's %s soak was over", gap, seed003Delay)
	}
}

// TestSeed001FourStageOrder is seed 001's introductory promotion, four stages without
// triggers, and proves the order: no cluster of a stage gets the content before every cluster
// of the stage before reported it provisioned.
func TestSeed001FourStageOrder(t *testing.T) {
	t.Parallel()
	const name, ns = "e2e-seed001-order", "e2e-seed001-order"
	p := seedPromotion(t, "001-clusterpromotion-core-payment-processor-ci.yaml", name, 0)
	// The seed's chart lives in an internal repository; a ConfigMap stands in for it.
	createConfigMap(t, name, map[string]string{"settings.yaml": configMapManifest(ns, "settings", "v1")})
	p.Spec.ProfileSpec.HelmCharts = nil
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(name)}
	order := []struct{ stage, cluster string }{{"development", "dev"}, {"uat", "qa"}, {"staging", "staging"}, {"production", "prod"}}
	for i, o := range order {
		if s := p.Spec.Stages[i]; s.Name != o.stage || s.ClusterSelector.MatchLabels["env"] != o.cluster || s.Trigger != nil {
			t.Fatalf("stage %d is %+v, want %s on %s without trigger", i, s, o.stage, o.cluster)
		}
	}

	tl := newTimeline()
	for _, o := range order {
		watchConfigMapAdded(t, tl, o.cluster, ns, "settings")
		watchProvisioned(t, tl, p.StageProfileName(o.stage))
	}
	createPromotion(t, p)
	expectAllProvisioned(t, waitPromoted(t, name))
	testenv.Eventually(t, timeout, func(context.Context) error {
		for _, o := range order {
			for _, key := range []string{"settings added on " + o.cluster, "provisioned " + p.StageProfileName(o.stage) + " on " + o.cluster} {
				if _, ok := tl.when(key); !ok {
					return fmt.Errorf("not seen yet: %s; seen:%s", key, tl)
				}
			}
		}
		return nil
	})
	t.Logf("timeline:%s", tl)
	for i := 1; i < len(order); i++ {
		prev, next := order[i-1], order[i]
		provisioned, _ := tl.when("provisioned " + p.StageProfileName(prev.stage) + " on " + prev.cluster)
		added, _ := tl.when("settings added on " + next.cluster)
		if !added.After(provisioned) {
			t.Errorf("stage %s: %s got the content %s before stage %s was provisioned on %s",
				next.stage, next.cluster, provisioned.Sub(added), prev.stage, prev.cluster)
		}
	}
}

// approve sends the seed's approval of stage idx: kubectl patch --type=json replace
// /spec/stages/<idx>/trigger/manual/approved true. (It works for the second approval too, after
// the engine cleared the field: the API server's JSON Patch replaces a missing object member.)
func approve(t *testing.T, name string, idx int) {
	t.Helper()
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	patch := fmt.Sprintf(`[{"op": "replace", "path": "/spec/stages/%d/trigger/manual/approved", "value": true}]`, idx)
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, []byte(patch))); err != nil {
		t.Fatal(err)
	}
}

// TestSeed002ManualApprovalAndUpgrade is seed 002's blog scenario: kyverno 3.5.2 goes to dev and
// staging, waits for the operator's approval before prod, then the upgrade to 3.6.2 goes stage
// by stage, prod keeping 3.5.2 until it is approved again.
func TestSeed002ManualApprovalAndUpgrade(t *testing.T) {
	t.Parallel()
	const ns = "e2e-seed002"
	p := seedPromotion(t, "002-clusterpromotion-kyverno-prog-rollout-man.yaml", "e2e-seed002", time.Second)
	localCharts(t, p, ns)
	// The blog installs 3.5.2 first; the seed's manifest is the 3.6.2 update applied after.
	p.Spec.ProfileSpec.HelmCharts[0].ChartVersion = "3.5.2"
	// The seed's patch approves /spec/stages/1: the stage that waits for approval must be there.
	const approvalStage = 1
	if s := p.Spec.Stages[approvalStage]; s.Name != "staging" || s.Trigger == nil || s.Trigger.Manual == nil {
		t.Fatalf("stage %d is %+v, not the seed's manual staging stage", approvalStage, s)
	}
	createPromotion(t, p)

	waitKyverno(t, "dev", ns, "3.5.2")
	waitKyverno(t, "staging", ns, "3.5.2")
	waitStage(t, p.Name, "staging", "Paused: Awaiting Manual Approval")
	if err := profileAbsent(t, p.StageProfileName("production")); err != nil {
		t.Fatalf("production started before the approval: %v", err)
	}
	if _, err := kyvernoVersion(t.Context(), managed(t, "prod"), ns); !apierrors.IsNotFound(err) {
		t.Fatalf("prod got kyverno before the approval (%v)", err)
	}

	approve(t, p.Name, approvalStage)
	waitKyverno(t, "prod", ns, "3.5.2")
	got := waitPromoted(t, p.Name)
	expectAllProvisioned(t, got)
	if a := got.Spec.Stages[approvalStage].Trigger.Manual.Approved; a != nil && *a {
		t.Errorf("the approval was not reset after production was promoted")
	}

	// The seed's update manifest: chartVersion 3.6.2.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cur, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		cur.Spec.ProfileSpec.HelmCharts[0].ChartVersion = "3.6.2"
		return testenv.Client(t).Update(ctx, cur)
	})
	waitKyverno(t, "dev", ns, "3.6.2")
	if v, err := kyvernoVersion(t.Context(), managed(t, "prod"), ns); err != nil || v != "3.5.2" {
		t.Errorf("when dev runs 3.6.2, prod runs %q (%v), want 3.5.2 until its turn", v, err)
	}
	waitKyverno(t, "staging", ns, "3.6.2")
	waitStage(t, p.Name, "staging", "Paused: Awaiting Manual Approval")
	if v, err := kyvernoVersion(t.Context(), managed(t, "prod"), ns); err != nil || v != "3.5.2" {
		t.Errorf("while staging awaits approval, prod runs %q (%v), want 3.5.2", v, err)
	}

	approve(t, p.Name, approvalStage)
	for _, cluster := range []string{"dev", "staging", "prod"} {
		waitKyverno(t, cluster, ns, "3.6.2")
	}
	expectAllProvisioned(t, waitPromoted(t, p.Name))
}

// markClusterIssuerReady plays cert-manager on a managed cluster, as markIssuerReady does, for
// the named ClusterIssuer: once it exists, it is set Ready.
func markClusterIssuerReady(t *testing.T, cluster, name string) {
	t.Helper()
	var dyn dynamic.Interface
	for _, c := range testenv.Fleet.Managed {
		if c.Name == cluster {
			dyn = dynamic.NewForConfigOrDie(c.Config)
		}
	}
	gvr := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "clusterissuers"}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		issuer, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("%s: %w", cluster, err)
		}
		cond := map[string]any{"type": "Ready", "status": "True", "reason": "ACMEAccountRegistered", "message": "registered"}
		if err := unstructured.SetNestedSlice(issuer.Object, []any{cond}, "status", "conditions"); err != nil {
			return err
		}
		_, err = dyn.Resource(gvr).UpdateStatus(ctx, issuer, metav1.UpdateOptions{})
		return err
	})
}

// timeStamps hides the times in stage descriptions, so that distinct states compare equal.
var timeStamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestSeed000CombinedRollout is seed 000's cert-manager rollout: maxUpdate, a Lua health check of
// the chart's Deployments, a ConfigMap carrying a Secret and a ClusterIssuer, and on dev a
// post-delay getResource check that holds the rollout until the ClusterIssuer is Ready.
func TestSeed000CombinedRollout(t *testing.T) {
	t.Parallel()
	const name, ns, issuer = "e2e-seed000", "e2e-seed000", "e2e-seed000-issuer"
	// TestGetResourceCheck deploys the ClusterIssuer CRD to prod through a profile, and its
	// cleanup withdraws it with every ClusterIssuer; wait until it is done with prod.
	testenv.Eventually(t, timeout, func(context.Context) error {
		return firstErr(profileAbsent(t, "e2e-getresource"), profileAbsent(t, "e2e-getresource-nosecret"))
	})

	// The seed's ConfigMap, under this test's names: the Secret in the release namespace and a
	// ClusterIssuer (cluster-scoped) of its own.
	data, err := os.ReadFile("../../testdata/seeds/000-configmap-secret-clusterissuer-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var seedCM corev1.ConfigMap
	if err := yaml.Unmarshal(data, &seedCM); err != nil {
		t.Fatal(err)
	}
	content := seedCM.Data["cert-manager-config.yaml"]
	content = strings.ReplaceAll(content, "namespace: cert-manager", "namespace: "+ns)
	content = strings.ReplaceAll(content, "name: cloudflare-issuer", "name: "+issuer)
	createConfigMap(t, name+"-config", map[string]string{"cert-manager-config.yaml": content})

	p := seedPromotion(t, "000-clusterpromotion-cert-manager-rollout-auto.yaml", name, time.Second)
	localCharts(t, p, ns)
	ps := &p.Spec.ProfileSpec
	ps.ValidateHealths[0].Namespace = ns
	ps.PolicyRefs[0].Name = name + "-config"
	check := &p.Spec.Stages[0].Trigger.Auto.PostDelayHealthChecks[0]
	check.Namespace = ns
	check.Script = strings.Replace(check.Script, `"cert-manager", "cloudflare-api-token"`, `"`+ns+`", "cloudflare-api-token"`, 1)
	if ps.MaxUpdate == nil || ps.MaxUpdate.String() != "10%" || !strings.Contains(check.Script, `"`+ns+`"`) ||
		ps.ValidateHealths[0].FeatureID != libv1beta1.FeatureHelm || p.Spec.Stages[2].ClusterSelector.MatchLabels["env"] != "prod" {
		t.Fatalf("not the seed's promotion: %+v", p.Spec)
	}
	createPromotion(t, p)

	// Dev is deployed, soaks, then runs the post-delay check, which fails: nothing runs
	// cert-manager, so the ClusterIssuer is not Ready.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs, err := summary(ctx, t, p.StageProfileName("dev"), "dev")
		if err != nil {
			return err
		}
		if msg := failureMessage(cs, libv1beta1.FeatureResources); !strings.Contains(msg, "Missing Secret or ClusterIssuer not ready") {
			return fmt.Errorf("dev: Resources failure %q", msg)
		}
		return nil
	})
	if err := profileAbsent(t, p.StageProfileName("staging")); err != nil {
		t.Errorf("staging started while dev's post-delay check fails: %v", err)
	}
	t.Run("dev awaits its health checks", func(t *testing.T) {
		// The stage says why it waits. Every description seen is reported, times hidden.
		var seen []string
		testenv.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			got, err := getPromotion(ctx, t, name)
			if err != nil {
				return err
			}
			d := stageDescription(got, "dev")
			if s := timeStamps.ReplaceAllString(d, "<time>"); !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
			if got.Status.CurrentStageName != "dev" || !strings.HasPrefix(d, "Awaiting Health Checks to Pass") {
				return fmt.Errorf("stage dev is %q, want \"Awaiting Health Checks to Pass\"; seen %q", d, seen)
			}
			return nil
		})
	})

	// Play cert-manager: each cluster's ClusterIssuer becomes Ready once it is there.
	for _, cluster := range []string{"dev", "staging", "prod"} {
		markClusterIssuerReady(t, cluster, issuer)
	}
	expectAllProvisioned(t, waitPromoted(t, name))
	for _, s := range []struct{ stage, cluster string }{{"dev", "dev"}, {"staging", "staging"}, {"production", "prod"}} {
		cs := expectFeature(t, p.StageProfileName(s.stage), s.cluster, libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
		if rs := cs.Status.HelmReleaseSummaries; len(rs) != 1 || rs[0].ReleaseName != "cert-manager" {
			t.Errorf("%s: helmReleaseSummaries %+v", s.cluster, rs)
		}
		if _, err := managed(t, s.cluster).CoreV1().Secrets(ns).Get(t.Context(), "cloudflare-api-token", metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", s.cluster, err)
		}
	}
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// jobHold is the scheduling gate the validation Job's pod is created with: it stays unscheduled,
// so the Job cannot succeed, until the test lifts the gate.
const jobHold = "stagecoach.dev/e2e-hold"

func validationJobManifest(ns, name string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: %s
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      schedulingGates:
      - name: %s
      containers:
      - name: validate
        image: example.com/validate:1
        command: ["/validate", "--endpoints"]
`, name, ns, jobHold)
}

// jobSucceeded is the post-delay check, in Lua: the validation Job has succeeded at least once.
const jobSucceeded = `function evaluate()
  local hs = {healthy = false, message = "validation Job has not succeeded yet"}
  if obj.status and obj.status.succeeded ~= nil and obj.status.succeeded >= 1 then
    hs.healthy = true
    hs.message = "validation Job succeeded"
  end
  return hs
end
`

// TestSeed001ValidationJob is seed 001's "Validation Job Before Promotion": after staging's
// soak, a Job is deployed through preHealthCheckDeployment, and the post-delay check of the Job
// holds the promotion until the Job has succeeded. The sandbox's kube-controller-manager,
// scheduler and kwok run the Job for real; the test decides when, by lifting a scheduling gate.
func TestSeed001ValidationJob(t *testing.T) {
	t.Parallel()
	const name, ns = "e2e-seed001-job", "e2e-seed001-job"
	p := seedPromotion(t, "001-clusterpromotion-core-app-rollout.yaml", name, time.Second)
	// The seed elides the application; a ConfigMap stands in for it.
	createConfigMap(t, name+"-app", map[string]string{"app.yaml": configMapManifest(ns, "app", "v1")})
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(name + "-app")}
	auto := p.Spec.Stages[0].Trigger.Auto
	check := &auto.PostDelayHealthChecks[0]
	// The seed's check reads one object of kind Job, written "type: Job" with the Job's name
	// (validation-job-stage-staging).
	job := check.Name
	if p.Spec.Stages[0].Name != "staging" || check.Type != "Job" || len(auto.PreHealthCheckDeployment.Refs()) != 1 {
		t.Fatalf("not the seed's stage: %+v", p.Spec.Stages[0])
	}
	// The seed's validation-job-staging ConfigMap, under this test's name in the management
	// cluster's default namespace; the check, in Lua, in the Job's namespace.
	createConfigMap(t, name+"-validation", map[string]string{"job.yaml": validationJobManifest(ns, job)})
	auto.PreHealthCheckDeployment = &configv1beta1.PolicyRefSet{ConfigMapRefs: []configv1beta1.ObjectRef{{Name: name + "-validation", Namespace: "default"}}}
	check.Namespace = ns
	check.EvaluateCEL, check.Script = nil, jobSucceeded
	// The seed shows the staging stage only; production is the stage its Job guards.
	p.Spec.Stages = append(p.Spec.Stages, stage("production", "prod", nil))

	staging := managed(t, "staging")
	tl := newTimeline()
	jobs, err := staging.BatchV1().Jobs(ns).Watch(context.Background(), metav1.ListOptions{FieldSelector: "metadata.name=" + job})
	if err != nil {
		t.Fatal(err)
	}
	follow(t, jobs, func(ev watch.Event) {
		if j, ok := ev.Object.(*batchv1.Job); ok && j.Status.Succeeded >= 1 {
			tl.mark("job succeeded")
		}
	})
	profiles, err := watchClient(t).Watch(context.Background(), &configv1beta1.ClusterProfileList{},
		client.MatchingFields{"metadata.name": p.StageProfileName("production")})
	if err != nil {
		t.Fatal(err)
	}
	follow(t, profiles, func(ev watch.Event) {
		if ev.Type == watch.Added {
			tl.mark("production profile added")
		}
	})
	createPromotion(t, p)

	// The Job is deployed through the stage's pre-verification profile and the check runs on
	// staging, failing while the Job's pod is held.
	preverification := "preverification-" + name + "-staging"
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: preverification}, &configv1beta1.ClusterProfile{}); err != nil {
			return err
		}
		cs, err := summary(ctx, t, p.StageProfileName("staging"), "staging")
		if err != nil {
			return err
		}
		if msg := failureMessage(cs, libv1beta1.FeatureResources); !strings.Contains(msg, "validation Job has not succeeded yet") {
			return fmt.Errorf("staging: Resources failure %q", msg)
		}
		return nil
	})
	j, err := staging.BatchV1().Jobs(ns).Get(t.Context(), job, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status.Succeeded != 0 {
		t.Fatalf("the Job succeeded while its pod was held: %+v", j.Status)
	}
	if err := profileAbsent(t, p.StageProfileName("production")); err != nil {
		t.Fatalf("production started before the validation Job succeeded: %v", err)
	}
	if got, err := getPromotion(t.Context(), t, name); err == nil {
		t.Logf("while the Job is held: stage staging is %q", stageDescription(got, "staging"))
	}

	// Let the Job run: kwok runs its pod to completion.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		pods, err := staging.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job})
		if err != nil {
			return err
		}
		if len(pods.Items) == 0 {
			return fmt.Errorf("no pod of Job %s yet", job)
		}
		for _, pod := range pods.Items {
			if len(pod.Spec.SchedulingGates) == 0 {
				continue
			}
			remove := []byte(`[{"op": "remove", "path": "/spec/schedulingGates"}]`)
			if _, err := staging.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.JSONPatchType, remove, metav1.PatchOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	// Seen by the watch: the promotion may move on, and withdraw the Job, at once.
	testenv.Eventually(t, timeout, func(context.Context) error {
		if _, ok := tl.when("job succeeded"); !ok {
			return fmt.Errorf("Job %s has not succeeded; seen:%s", job, tl)
		}
		return nil
	})

	expectAllProvisioned(t, waitPromoted(t, name))
	testenv.Eventually(t, timeout, func(context.Context) error { return profileAbsent(t, preverification) })
	testenv.Eventually(t, timeout, func(context.Context) error {
		if _, ok := tl.when("production profile added"); !ok {
			return fmt.Errorf("production profile not seen; seen:%s", tl)
		}
		return nil
	})
	t.Logf("timeline:%s", tl)
	succeeded, ok := tl.when("job succeeded")
	added, _ := tl.when("production profile added")
	if !ok || !added.After(succeeded) {
		t.Errorf("production started before the validation Job succeeded:%s", tl)
	}
	waitConfigMapValue(t, managed(t, "prod"), ns, "app", "v1")
}
