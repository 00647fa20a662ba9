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

package gitserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloneSeesEachCommit clones over HTTP, as source-controller does, after each commit.
func TestCloneSeesEachCommit(t *testing.T) {
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	first, err := s.Commit(ctx, "policies", "main", "first", map[string][]byte{"deploy/a.yaml": []byte("v1")})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Commit(ctx, "policies", "main", "second", map[string][]byte{"deploy/a.yaml": []byte("v2"), "deploy/b.yaml": []byte("b")})
	if err != nil {
		t.Fatal(err)
	}
	if first == second || len(second) != 40 {
		t.Fatalf("commits %q and %q; want two distinct hashes", first, second)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	out, err := exec.Command("git", "clone", "--branch", "main", s.RepoURL("policies"), clone).CombinedOutput()
	if err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(head)) != second {
		t.Fatalf("cloned HEAD %q, %v; want %s", head, err, second)
	}
	if data, err := os.ReadFile(filepath.Join(clone, "deploy", "a.yaml")); err != nil || string(data) != "v2" {
		t.Fatalf("deploy/a.yaml = %q, %v; want v2", data, err)
	}
}
