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
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestCheckScript runs the corpus' own check.sh, with the kubectl of `make kube`, against the
// sandbox's management cluster, which has the chart's CRDs. Every document upstream's CRDs
// accept must be accepted; the rest are upstream's documentation bugs, listed by file.
func TestCheckScript(t *testing.T) {
	t.Parallel() // dry runs only: it may overlap the corpus runs
	dir := corpusDir(t)
	kubeBin, err := sandbox.FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join(dir, "check.sh"), testenv.Fleet.Management.Kubeconfig)
	cmd.Env = append(os.Environ(), "PATH="+kubeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("check.sh: %v: %s", err, stderr.String())
	}

	refusedUpstream := upstreamRefusals(t, dir)
	for f := range invalidEverywhere {
		refusedUpstream[f] = true
	}
	for f := range invalidKubefleet {
		refusedUpstream[f] = true
	}
	var accepted, total int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ACCEPT "):
			total++
			accepted++
			if f := strings.TrimPrefix(line, "ACCEPT "); refusedUpstream[f] {
				t.Logf("%s is accepted here, though upstream's CRDs refuse it", f)
			}
		case strings.HasPrefix(line, "REJECT "):
			total++
			f, why, _ := strings.Cut(strings.TrimPrefix(line, "REJECT "), ": ")
			if refusedUpstream[f] {
				t.Logf("%s is refused, as by upstream's CRDs: %s", f, why)
			} else {
				t.Errorf("%s is refused, though upstream's CRDs accept it: %s", f, why)
			}
		}
	}
	if total == 0 {
		t.Fatalf("check.sh printed no verdict: %s%s", out, stderr.String())
	}
	t.Logf("check.sh accepts %d of %d documents", accepted, total)
}
