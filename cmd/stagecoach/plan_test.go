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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/plan"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// stagecoach runs the command line in-process against the test fleet's management cluster and
// returns what it printed.
func stagecoach(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return stagecoachWithin(t.Context(), args...)
}

// stagecoachWithin is stagecoach bounded by ctx.
func stagecoachWithin(ctx context.Context, args ...string) (string, error) {
	return stagecoachAs(ctx, testenv.Fleet.Management.Kubeconfig, args...)
}

// stagecoachAs is stagecoach with the management cluster's kubeconfig.
func stagecoachAs(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newRootCommand()
	switch args[0] {
	case "version", "completion":
	case "__complete": // the shell's request: the word being completed comes last
		last := args[len(args)-1]
		args = append(append(args[:len(args)-1:len(args)-1], "--kubeconfig", kubeconfig), last)
	case "register", "unregister":
		args = append(args, "--management-kubeconfig", kubeconfig) // their --kubeconfig is the managed cluster's
	default:
		args = append(args, "--kubeconfig", kubeconfig)
	}
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// refused runs each command line, split at spaces, and expects it to fail with an error that
// says what the map gives.
func refused(t *testing.T, says map[string]string) {
	t.Helper()
	for args, want := range says {
		if out, err := stagecoach(t, strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("stagecoach %s: %v (%s), want an error with %q", args, err, out, want)
		}
	}
}

// chartRepo serves testdata/charts once for the whole test binary.
var chartRepo = sync.OnceValues(func() (string, error) {
	url, _, err := chartrepo.Serve(context.Background(), "../../testdata/charts")
	return url, err
})

func managed(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	for _, c := range testenv.Fleet.Managed {
		if c.Name == name {
			return kubernetes.NewForConfigOrDie(c.Config)
		}
	}
	t.Fatalf("no managed cluster %s", name)
	return nil
}

// TestPlanCommand plans a new version of a promotion that runs v1 everywhere: the stages and
// waves come out in the order the rollout would take, each cluster's dry run says what would
// change (a field of a ConfigMap, a chart upgrade), and nothing changes anywhere.
func TestPlanCommand(t *testing.T) {
	c := testenv.Client(t)
	repo, err := chartRepo()
	if err != nil {
		t.Fatal(err)
	}
	content := func(name, value string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: plan\ndata:\n  value: " + value + "\n"}}
	}
	promotion := func(cm, chart string) *configv1beta1.ClusterPromotion {
		p := &configv1beta1.ClusterPromotion{
			TypeMeta:   metav1.TypeMeta{APIVersion: configv1beta1.GroupVersion.String(), Kind: configv1beta1.ClusterPromotionKind},
			ObjectMeta: metav1.ObjectMeta{Name: "plan"},
		}
		one := intstr.FromInt32(1)
		p.Spec.ProfileSpec.MaxUpdate = &one
		p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: cm}}
		p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{{
			RepositoryURL: repo, RepositoryName: "local", ChartName: "local/webapp", ChartVersion: chart,
			ReleaseName: "web", ReleaseNamespace: "plan", HelmChartAction: configv1beta1.HelmChartActionInstall,
		}}
		dev := configv1beta1.Stage{Name: "dev"}
		dev.ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
		rest := configv1beta1.Stage{Name: "rest"}
		rest.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "qa"}}}
		p.Spec.Stages = []configv1beta1.Stage{dev, rest}
		return p
	}
	for _, cm := range []*corev1.ConfigMap{content("plan-v1", "v1"), content("plan-v2", "v2")} {
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })
	}
	v1 := promotion("plan-v1", "1.0.0")
	if err := c.Create(t.Context(), v1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, v1) })
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(v1), got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, configv1beta1.PromotionReadyCondition) {
			return fmt.Errorf("not rolled out: %+v", got.Status.Conditions)
		}
		return nil
	})

	// The file holds the new version and, as files do, the content it deploys: that is skipped.
	v2, err := yaml.Marshal(promotion("plan-v2", "1.1.0"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "promotion.yaml")
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plan-v2\n  namespace: default\n---\n" + string(v2)
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := stagecoach(t, "plan", "-f", file, "-o", "json")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	var got plan.Plan
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var waves []string
	for _, s := range got.Stages {
		waves = append(waves, fmt.Sprintf("%s %v", s.Name, s.Waves))
	}
	if want := []string{"dev [[dev/dev]]", "rest [[prod/prod] [qa/qa]]"}; !slices.Equal(waves, want) {
		t.Errorf("waves %q, want %q", waves, want)
	}
	for _, s := range got.Stages {
		for _, cluster := range s.Clusters() {
			ch := s.Changes[cluster]
			if ch.Error != "" || ch.Summary != "1 to update; upgrade plan/web 1.0.0 -> 1.1.0" {
				t.Errorf("%s: %+v", cluster, ch)
				continue
			}
			if o := ch.Objects[0]; o.Object != "ConfigMap plan/settings" || !slices.Equal(o.Changes, []string{`~ data.value: "v1" -> "v2"`}) {
				t.Errorf("%s: object change %+v", cluster, o)
			}
			if r := ch.Releases[0]; r.Action != "Upgrade" || !strings.Contains(r.Diff, "1.1.0") {
				t.Errorf("%s: release change %+v", cluster, r)
			}
		}
	}

	// Nothing was applied: not the promotion, not the clusters.
	stored := &configv1beta1.ClusterPromotion{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(v1), stored); err != nil {
		t.Fatal(err)
	}
	if stored.Spec.ProfileSpec.PolicyRefs[0].Name != "plan-v1" {
		t.Errorf("the plan changed the promotion: %+v", stored.Spec.ProfileSpec.PolicyRefs)
	}
	for _, cluster := range []string{"dev", "prod", "qa"} {
		cm, err := managed(t, cluster).CoreV1().ConfigMaps("plan").Get(t.Context(), "settings", metav1.GetOptions{})
		if err != nil || cm.Data["value"] != "v1" {
			t.Errorf("%s: settings %v (%v), want v1", cluster, cm.Data, err)
		}
	}

	text, err := stagecoach(t, "plan", "-f", file)
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, text)
	}
	for _, want := range []string{"ClusterPromotion plan: 2 stages, 3 clusters", "Stage rest: 2 waves", "  Wave 2\n    qa/qa",
		`~ data.value: "v1" -> "v2"`, "Helm upgrade plan/web 1.0.0 -> 1.1.0"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text plan lacks %q:\n%s", want, text)
		}
	}
}

// TestPlanBadInput: a file without anything to plan, and a spec the API refuses, are errors
// that say so.
func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ doc, want string }{
		"nothing to plan": {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "no ClusterPromotion, ClusterProfile"},
		"refused by the API": {"apiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterPromotion\nmetadata:\n  name: bad\nspec:\n  stages: []\n",
			"ClusterPromotion bad: "},
		"not YAML": {"kind: [", "document 1"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		if err := os.WriteFile(file, []byte(tc.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := stagecoach(t, "plan", "-f", file)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q (output %q)", name, err, tc.want, out)
		}
	}
	// A ClusterProfile is a one-stage plan, named after it.
	file := filepath.Join(dir, "profile.yaml")
	profile := "apiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterProfile\nmetadata:\n  name: plan-profile\nspec:\n  clusterSelector:\n    matchLabels:\n      env: qa\n"
	if err := os.WriteFile(file, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := stagecoach(t, "plan", "-f", file, "-o", "json", "--changes=false")
	if err != nil {
		t.Fatalf("profile plan: %v\n%s", err, out)
	}
	var got plan.Plan
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Stages) != 1 || got.Stages[0].Name != "plan-profile" || fmt.Sprint(got.Stages[0].Waves) != "[[qa/qa]]" || got.Stages[0].Changes != nil {
		t.Errorf("profile plan %+v", got)
	}
}

func deletePromotion(t *testing.T, c client.Client, p *configv1beta1.ClusterPromotion) {
	_ = c.Delete(context.Background(), p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterPromotion{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("promotion %s still there (%v)", p.Name, err)
		}
		return nil
	})
}
