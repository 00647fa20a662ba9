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

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/notify"
	"github.com/stagecoach-dev/stagecoach/internal/testing/notifysink"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestNotifications: a promotion with a manual stage posts approval.needed, then
// stage.blocked while nobody approves, then version.completed once approved, to a CloudEvents
// and a Slack endpoint; a version failing its progressDeadline posts stage.failed and, with
// onFailure: Rollback, rollback.started and rollback.finished; a stage that fails, is retried
// and fails again posts stage.failed twice. A restarted notification controller, with the same
// record, sends none of these again.
func TestNotifications(t *testing.T) {
	t.Parallel()
	const ns = "e2e-notify"
	sink := notifysink.New(t)
	endpoints := fmt.Sprintf(`blockedAfter: 4s
endpoints:
- name: ce
  type: CloudEvents
  url: %[1]s/ce
- name: chat
  type: Slack
  url: %[1]s/services/T000/B000/s3cret
  events: [approval.needed, version.completed, stage.failed]
`, sink.URL)
	const manual, failing, retried = "ClusterPromotion e2e-notify", "ClusterPromotion e2e-notify-fail", "ClusterPromotion e2e-notify-retry"

	t.Run("first controller", func(t *testing.T) {
		notifysink.Start(t, ns, "endpoints", endpoints, "record")
		createConfigMap(t, "e2e-notify", map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v1")})
		p := promotion("e2e-notify", "e2e-notify",
			stage("staging", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
			stage("production", "prod", nil))
		createPromotion(t, p)

		approval := sink.WaitCloudEvent(t, manual, "approval.needed", "staging")
		if approval.SpecVersion != "1.0" || approval.Data.Object.Kind != "ClusterPromotion" || approval.Data.Version == "" ||
			!strings.Contains(approval.Data.Message, "manual approval") {
			t.Errorf("approval.needed %+v", approval)
		}
		sink.WaitCloudEvent(t, manual, "stage.blocked", "staging")
		waitText(t, sink, "approval.needed: ClusterPromotion e2e-notify, stage staging")

		patch := []byte(`[{"op": "replace", "path": "/spec/stages/0/trigger/manual/approved", "value": true}]`)
		if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, patch)); err != nil {
			t.Fatal(err)
		}
		done := sink.WaitCloudEvent(t, manual, "version.completed", "")
		if done.Data.Version != approval.Data.Version {
			t.Errorf("version.completed of version %s, approval was for %s", done.Data.Version, approval.Data.Version)
		}
		waitText(t, sink, "version.completed: ClusterPromotion e2e-notify")
		if got := sink.Texts("stage.blocked"); len(got) != 0 {
			t.Errorf("the Slack endpoint, which does not take stage.blocked, got %q", got)
		}

		// A version that completes, then one that fails its deadline and is rolled back.
		createConfigMap(t, "e2e-notify-fail", map[string]string{"cm.yaml": configMapManifest(ns, "fail", "v1")})
		f := promotion("e2e-notify-fail", "e2e-notify-fail", stage("dev", "dev", nil))
		f.Spec.Stages[0].ProgressDeadline = &metav1.Duration{Duration: 5 * time.Second}
		f.Spec.OnFailure = configv1beta1.OnFailureRollback
		createPromotion(t, f)
		good := sink.WaitCloudEvent(t, failing, "version.completed", "")
		bad := []byte(`[{"op": "add", "path": "/spec/profileSpec/helmCharts", "value": [{"repositoryURL": "http://127.0.0.1:9/charts",
			"repositoryName": "gone", "chartName": "gone/webapp", "chartVersion": "1.0.0", "releaseName": "webapp",
			"releaseNamespace": "e2e-notify", "helmChartAction": "Install"}]}]`)
		if err := testenv.Client(t).Patch(t.Context(), f, client.RawPatch(types.JSONPatchType, bad)); err != nil {
			t.Fatal(err)
		}
		failed := sink.WaitCloudEvent(t, failing, "stage.failed", "dev")
		if failed.Data.Version == good.Data.Version || !strings.Contains(failed.Data.Message, "stage dev failed") {
			t.Errorf("stage.failed %+v", failed.Data)
		}
		sink.WaitCloudEvent(t, failing, "rollback.started", "dev")
		sink.WaitCloudEvent(t, failing, "rollback.finished", "")
		waitText(t, sink, "stage.failed: ClusterPromotion e2e-notify-fail, stage dev")

		// A stage that cannot deploy fails its deadline, is retried, and fails again: the second
		// failure of the same version and stage is a new transition, with an id of its own.
		createConfigMap(t, "e2e-notify-retry", map[string]string{"cm.yaml": configMapManifest(ns, "retry", "v1")})
		rp := promotion("e2e-notify-retry", "e2e-notify-retry", stage("dev", "dev", nil))
		rp.Spec.Stages[0].ProgressDeadline = &metav1.Duration{Duration: 5 * time.Second}
		rp.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{{RepositoryURL: "http://127.0.0.1:9/charts", RepositoryName: "gone",
			ChartName: "gone/webapp", ChartVersion: "1.0.0", ReleaseName: "webapp", ReleaseNamespace: ns, HelmChartAction: configv1beta1.HelmChartActionInstall}}
		createPromotion(t, rp)
		first := sink.WaitCloudEvent(t, retried, "stage.failed", "dev")
		retry := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"e2e1"}}}`, configv1beta1.RetryAnnotation)
		if err := testenv.Client(t).Patch(t.Context(), rp, client.RawPatch(types.MergePatchType, retry)); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, notifysink.Timeout, func(context.Context) error {
			var ids []string
			for _, e := range sink.CloudEvents(retried) {
				if e.Type == notify.TypeStageFailed && e.ID != first.ID && e.Data.Version == first.Data.Version {
					return nil
				}
				ids = append(ids, e.Type+" "+e.ID)
			}
			got := &configv1beta1.ClusterPromotion{}
			_ = testenv.Client(t).Get(t.Context(), client.ObjectKeyFromObject(rp), got)
			return fmt.Errorf("no second stage.failed after the retry; have %v; status: failure %+v, retry %+v, stages %+v, conditions %+v",
				ids, got.Status.Failure, got.Status.Retry, got.Status.Stages, got.Status.Conditions)
		})
	})
	before := len(sink.Posts(func(notifysink.Post) bool { return true }))

	t.Run("restarted controller", func(t *testing.T) {
		notifysink.Start(t, ns, "endpoints", endpoints, "record")
		// A new promotion's event shows the restarted controller at work, and has gone through
		// the old promotions by then: it lists every promotion at start, before this one exists.
		createConfigMap(t, "e2e-notify-after", map[string]string{"cm.yaml": configMapManifest(ns, "after", "v1")})
		createPromotion(t, promotion("e2e-notify-after", "e2e-notify-after", stage("dev", "dev", nil)))
		sink.WaitCloudEvent(t, "ClusterPromotion e2e-notify-after", "version.completed", "")
	})
	for _, subject := range []string{manual, failing, retried} {
		ids := map[string]int{}
		for _, e := range sink.CloudEvents(subject) {
			ids[e.Type+" "+e.ID]++
		}
		for id, n := range ids {
			if n != 1 {
				t.Errorf("%s: %s sent %d times", subject, id, n)
			}
		}
	}
	if texts := sink.Texts("ClusterPromotion e2e-notify,"); len(texts) != 2 {
		t.Errorf("Slack texts about e2e-notify: %q", texts)
	}
	// The webhook's token is nowhere in the record.
	cm := &corev1.ConfigMap{}
	if err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "record"}, cm); err != nil || strings.Contains(cm.Data["settled"], "s3cret") ||
		!strings.Contains(cm.Data["settled"], "chat ") {
		t.Errorf("record %v: %q", err, cm.Data)
	}
	t.Logf("%d posts before the restart, %d after", before, len(sink.Posts(func(notifysink.Post) bool { return true })))
}

// TestNotifyConfigRefused: endpoints.yaml naming an unknown kind, and a Secret that does not
// exist, are told as a Warning Event on the Secret, without the webhook's token; nothing is
// sent and rollouts go on (the other tests' promotions run meanwhile).
func TestNotifyConfigRefused(t *testing.T) {
	t.Parallel()
	const ns = "e2e-notify-bad"
	notifysink.Start(t, ns, "endpoints", "endpoints:\n- name: x\n  type: Teams\n  url: https://hooks.example/T000/s3cret\n", "record")
	secret := &corev1.Secret{}
	if err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "endpoints"}, secret); err != nil {
		t.Fatal(err)
	}
	ev := testenv.ExpectEvent(t, timeout, testenv.Client(t), secret, "NotifyConfigRefused")
	if !strings.Contains(ev.Note, `type "Teams" is not one of CloudEvents, Slack, Flux`) || strings.Contains(ev.Note, "s3cret") || ev.Type != corev1.EventTypeWarning {
		t.Errorf("Event %s %q", ev.Type, ev.Note)
	}

	notifysink.Start(t, ns, "absent", "", "record-absent")
	missing := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "absent"}}
	ev = testenv.ExpectEvent(t, timeout, testenv.Client(t), missing, "NotifyConfigRefused")
	if want := "the notification endpoints' Secret e2e-notify-bad/absent does not exist"; !strings.Contains(ev.Note, want) {
		t.Errorf("Event %q, want %q", ev.Note, want)
	}
}

func waitText(t *testing.T, sink *notifysink.Sink, fragment string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(context.Context) error {
		if len(sink.Texts(fragment)) == 0 {
			return fmt.Errorf("no Slack text with %q", fragment)
		}
		return nil
	})
}
