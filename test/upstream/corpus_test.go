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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// document is one manifest of the corpus.
type document struct {
	file, apiVersion, kind, namespace string
}

// corpusDir finds the corpus: $STAGECOACH_UPSTREAM_DIR, or shared/upstream beside the
// repository or beside a directory above it. A machine without it skips the test, unless
// $STAGECOACH_REQUIRE_UPSTREAM is set, so that a missing corpus cannot pass as a green run
// where it is expected.
func corpusDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("STAGECOACH_UPSTREAM_DIR"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "index.tsv")); err != nil {
			t.Fatalf("STAGECOACH_UPSTREAM_DIR: %v", err)
		}
		return dir
	}
	// The test runs in test/upstream: the repository is two levels up.
	for dir := filepath.Join("..", "..", ".."); ; dir = filepath.Join(dir, "..") {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		candidate := filepath.Join(abs, "shared", "upstream")
		if _, err := os.Stat(filepath.Join(candidate, "index.tsv")); err == nil {
			return candidate
		}
		if abs == filepath.Dir(abs) {
			break
		}
	}
	if os.Getenv("STAGECOACH_REQUIRE_UPSTREAM") != "" {
		t.Fatal("the upstream corpus (shared/upstream beside the repository) is not found; set STAGECOACH_UPSTREAM_DIR")
	}
	t.Skip("the upstream corpus (shared/upstream beside the repository) is not found; set STAGECOACH_UPSTREAM_DIR to run this test")
	return ""
}

// corpusDocuments lists the corpus' documents under prefix ("sveltos/", "kubefleet/") that
// upstream's own CRDs accept: PREDICTION.md names those they refuse (v1alpha1 kinds, unknown
// fields), which are upstream's documentation bugs rather than anything Stagecoach could run.
func corpusDocuments(t *testing.T, dir, prefix string) []document {
	t.Helper()
	refusedUpstream := upstreamRefusals(t, dir)
	f, err := os.Open(filepath.Join(dir, "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []document
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		for len(cols) < 4 {
			cols = append(cols, "")
		}
		d := document{file: cols[0], apiVersion: cols[1], kind: cols[2], namespace: cols[3]}
		if !strings.HasPrefix(d.file, prefix) || refusedUpstream[d.file] {
			continue
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// predictionRow is a row of PREDICTION.md's table: | `file` | vs Stagecoach | vs upstream |.
var predictionRow = regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\| (.*) \\|$")

func upstreamRefusals(t *testing.T, dir string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "PREDICTION.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for line := range strings.SplitSeq(string(data), "\n") {
		if m := predictionRow.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[3]) != "ok" {
			out[m[1]] = true
		}
	}
	return out
}
