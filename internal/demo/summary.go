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

package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

// summary reads what runs on every cluster, straight from the clusters, and tells the user how
// to look around and how to tear the fleet down.
func (d *demo) summary(ctx context.Context) error {
	fleet, err := sandbox.Load(d.Dir)
	if err != nil {
		return err
	}
	d.say("\nSummary")
	for _, ph := range d.phases {
		d.say("  %-28s %s", ph.name, ph.elapsed.Round(100*time.Millisecond))
	}
	d.say("  %-28s %s", "demo, start to end", time.Since(d.start).Round(100*time.Millisecond))
	d.say("\n  what each cluster runs now (read from the cluster):")
	for _, c := range fleet.Managed {
		cs, err := kubernetes.NewForConfig(c.Config)
		if err != nil {
			return err
		}
		version, replicas := "?", "?"
		if cm, err := cs.CoreV1().ConfigMaps("webapp").Get(ctx, "webapp-info", metav1.GetOptions{}); err == nil {
			version = cm.Data["chartVersion"]
		}
		if dep, err := cs.AppsV1().Deployments("webapp").Get(ctx, "webapp", metav1.GetOptions{}); err == nil {
			replicas = fmt.Sprintf("%d/%d available", dep.Status.AvailableReplicas, dep.Status.Replicas)
		}
		d.say("    %-8s webapp %-6s Deployment webapp %s", c.Name, version, replicas)
	}
	kubectl := "kubectl"
	if bin, err := sandbox.FindKubeBin(); err == nil {
		if _, err := os.Stat(filepath.Join(bin, "kubectl")); err == nil {
			kubectl = filepath.Join(bin, "kubectl")
		}
	}
	mgmt := fleet.Management.Kubeconfig
	d.say(`
The fleet and the controller keep running. Look around:
  %[8]s status promotion %[3]s --kubeconfig %[2]s
  %[8]s get clusters --kubeconfig %[2]s
  %[1]s --kubeconfig %[2]s get clusterpromotion %[3]s -o wide
  %[1]s --kubeconfig %[2]s get clusterprofiles,clustersummaries -A
  %[1]s --kubeconfig %[2]s get events -A --field-selector involvedObject.kind=ClusterPromotion
  %[1]s --kubeconfig %[4]s -n webapp get deployments,pods,configmaps
  controller log: %[5]s
Promote another version (2.0.0 is served too):
  %[1]s --kubeconfig %[2]s patch clusterpromotion %[3]s --type=json -p '%[6]s'
Tear it all down:
  bin/stagecoach sandbox down --dir %[7]s`,
		kubectl, mgmt, promotionName, filepath.Join(fleet.Dir, "prod.kubeconfig"),
		sandbox.LogFile(d.Dir, "stagecoach-controller"), upgradePatch("2.0.0"), d.Dir, d.Executable)
	return nil
}

func splitLines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
