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

package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// TextOptions say how WriteText draws.
type TextOptions struct {
	// Color draws states with symbols and colours, for a terminal.
	Color bool
}

// symbols and colours (ANSI SGR) of the states on a terminal.
var symbols = map[State]struct{ symbol, color string }{
	Pending:     {"○", "90"},
	Progressing: {"●", "34"},
	Waiting:     {"◐", "33"},
	Suspended:   {"⏸", "33"},
	Failed:      {"✗", "31"},
	RollingBack: {"↺", "36"},
	RolledBack:  {"↺", "36"},
	Succeeded:   {"✓", "32"},
	Unreachable: {"!", "31"},
	Paused:      {"‖", "90"},
}

// Symbol is the state's sign, drawn beside its name so that no reader depends on colour alone.
func (s State) Symbol() string { return symbols[s].symbol }

// WriteText draws the rollout as a tree: the rollout, then each stage, then its clusters.
func WriteText(w io.Writer, r *Rollout, opts TextOptions) error {
	state := func(s State) string {
		if !opts.Color {
			return string(s)
		}
		sym := symbols[s]
		return fmt.Sprintf("\x1b[%sm%s %s\x1b[0m", sym.color, sym.symbol, s)
	}
	var b strings.Builder
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	fmt.Fprintf(&b, "%s %s: %s", r.Kind, name, state(r.State))
	if r.Version != "" {
		fmt.Fprintf(&b, " (version %s)", r.Version)
	}
	b.WriteString("\n")
	if r.Message != "" {
		fmt.Fprintf(&b, "  %s\n", r.Message)
	}
	for i := range r.Stages {
		st := &r.Stages[i]
		total := st.Total()
		fmt.Fprintf(&b, "\nStage %s: %s, %d of %s succeeded\n", st.Name, state(st.State), st.Counts[Succeeded], Plural(total, "cluster"))
		if st.WaitingFor != "" {
			fmt.Fprintf(&b, "  %s\n", st.WaitingFor)
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, c := range st.Clusters {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Name, state(c.State), c.Runs, c.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if more := total - len(st.Clusters); more > 0 {
			fmt.Fprintf(&b, "  … and %d more\n", more)
		}
	}
	// Trailing blanks of empty columns say nothing.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n"))
	return err
}
