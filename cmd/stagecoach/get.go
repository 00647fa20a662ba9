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
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

func newGetCommand() *cobra.Command {
	var (
		kube      kubeFlags
		namespace string
	)
	cmd := &cobra.Command{
		Use:   "get promotions|runs|clusters",
		Short: "List promotions, update runs or clusters, one line each, with where they stand",
		Example: `  stagecoach get promotions
  stagecoach get runs -n test-namespace
  stagecoach get clusters`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"promotions", "runs", "clusters"},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := kube.client()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 3, ' ', 0)
			switch strings.TrimSuffix(args[0], "s") {
			case "promotion":
				err = getPromotions(cmd, c, tw)
			case "run":
				err = getRuns(cmd, c, tw, namespace)
			case "cluster":
				err = getClusters(cmd, c, tw, namespace)
			default:
				return fmt.Errorf("stagecoach get %s: want promotions, runs or clusters", args[0])
			}
			if err != nil {
				return explain(err)
			}
			return tw.Flush()
		},
	}
	kube.add(cmd.Flags())
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "only StagedUpdateRuns or SveltosClusters of this namespace (runs: and no ClusterStagedUpdateRuns)")
	return cmd
}

func getPromotions(cmd *cobra.Command, c client.Reader, w io.Writer) error {
	var list configv1beta1.ClusterPromotionList
	if err := c.List(cmd.Context(), &list); err != nil {
		return err
	}
	fmt.Fprintln(w, "NAME\tSTAGE\tSTATE\tVERSION\tAGE\tMESSAGE")
	for i := range list.Items {
		p := &list.Items[i]
		state, msg := view.PromotionState(p)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, dash(p.Status.CurrentStageName), state, dash(view.Version(p.Status.ProfileSpecHash)),
			age(p.CreationTimestamp), short(msg))
	}
	return nil
}

func getRuns(cmd *cobra.Command, c client.Reader, w io.Writer, namespace string) error {
	var runs []placementv1beta1.UpdateRunObj
	families := placementv1beta1.Families()
	if namespace != "" {
		families = families[1:]
	}
	for _, f := range families {
		list := f.NewUpdateRunList()
		if err := c.List(cmd.Context(), list, client.InNamespace(namespace)); err != nil {
			return err
		}
		runs = append(runs, list.UpdateRunObjs()...)
	}
	fmt.Fprintln(w, "NAMESPACE\tNAME\tPLACEMENT\tINDEX\tSTAGE\tSTATE\tAGE\tMESSAGE")
	for _, r := range runs {
		state, msg := view.RunState(r)
		stage := ""
		for _, st := range r.UpdateRunStatus().StagesStatus {
			if !meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded)) {
				stage = st.StageName
				break
			}
		}
		index := r.UpdateRunStatus().ResourceSnapshotIndexUsed
		if index == "" {
			index = r.UpdateRunSpec().ResourceSnapshotIndex
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dash(r.GetNamespace()), r.GetName(), r.UpdateRunSpec().PlacementName, dash(index), dash(stage),
			state, age(r.GetCreationTimestamp()), short(msg))
	}
	return nil
}

func getClusters(cmd *cobra.Command, c client.Reader, w io.Writer, namespace string) error {
	var sveltos libv1beta1.SveltosClusterList
	if err := c.List(cmd.Context(), &sveltos, client.InNamespace(namespace)); err != nil {
		return err
	}
	var members clusterv1beta1.MemberClusterList
	if namespace == "" {
		if err := c.List(cmd.Context(), &members); err != nil && !meta.IsNoMatchError(err) {
			return err
		}
	}
	fmt.Fprintln(w, "NAME\tKIND\tREADY\tLABELS\tAGE\tMESSAGE")
	for i := range sveltos.Items {
		cl := &sveltos.Items[i]
		ready, msg := fmt.Sprint(cl.Status.Ready), ""
		if cl.Status.FailureMessage != nil {
			msg = *cl.Status.FailureMessage
		}
		if cl.Spec.Paused {
			ready, msg = "Paused", strings.TrimPrefix(msg+"; paused", "; ")
		}
		fmt.Fprintf(w, "%s/%s\tSveltosCluster\t%s\t%s\t%s\t%s\n", cl.Namespace, cl.Name, ready, labelList(cl.Labels), age(cl.CreationTimestamp), short(msg))
	}
	for i := range members.Items {
		m := &members.Items[i]
		ready, msg := "Unknown", ""
		if h := meta.FindStatusCondition(m.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterHealthy)); h != nil {
			ready, msg = fmt.Sprint(h.Status == metav1.ConditionTrue), h.Message
		}
		fmt.Fprintf(w, "%s\tMemberCluster\t%s\t%s\t%s\t%s\n", m.Name, ready, labelList(m.Labels), age(m.CreationTimestamp), short(msg))
	}
	return nil
}

func labelList(labels map[string]string) string {
	var kv []string
	for k, v := range labels {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return dash(strings.Join(kv, ","))
}

func age(t metav1.Time) string { return duration.HumanDuration(time.Since(t.Time)) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// short keeps a message to one line of reasonable length: the object's status has all of it.
func short(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if r := []rune(msg); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return msg
}
