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

package plan

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
)

// WriteText prints plans for people: stage by stage, wave by wave, each cluster with what it
// would change and, indented below, the objects and fields.
func WriteText(w io.Writer, plans []*Plan) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, p := range plans {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		writePlan(tw, p)
	}
	return tw.Flush()
}

func writePlan(w io.Writer, p *Plan) {
	name := p.Name
	if p.Namespace != "" {
		name = p.Namespace + "/" + name
	}
	clusters := 0
	for _, s := range p.Stages {
		clusters += len(s.Clusters())
	}
	fmt.Fprintf(w, "%s %s: %s, %s\n", p.Kind, name, count(len(p.Stages), "stage"), count(clusters, "cluster"))
	for _, s := range p.Stages {
		fmt.Fprintf(w, "\nStage %s: %s\n", s.Name, count(len(s.Waves), "wave"))
		for i, wave := range s.Waves {
			fmt.Fprintf(w, "  Wave %d\n", i+1)
			for _, c := range wave {
				writeCluster(w, c, s.Changes)
			}
		}
		for _, c := range sortedKeys(s.Unavailable) {
			fmt.Fprintf(w, "  Waits, unavailable: %s\t%s\n", c, s.Unavailable[c])
		}
	}
}

func writeCluster(w io.Writer, cluster string, changes map[string]Change) {
	ch, ok := changes[cluster]
	if !ok {
		fmt.Fprintf(w, "    %s\n", cluster)
		return
	}
	fmt.Fprintf(w, "    %s\t%s\n", cluster, ch.Summary)
	for _, o := range ch.Objects {
		line := o.Action + " " + o.Object
		if o.Message != "" {
			line += ": " + o.Message
		}
		fmt.Fprintf(w, "      %s\n", line)
		for _, c := range o.Changes {
			fmt.Fprintf(w, "        %s\n", c)
		}
	}
	for _, r := range ch.Releases {
		if r.Action != string(helm.PlanNoChange) {
			fmt.Fprintf(w, "      Helm %s\n", r.describe())
		}
	}
}

// count: "1 stage", "3 clusters".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
