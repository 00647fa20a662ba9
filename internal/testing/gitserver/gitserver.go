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

// Package gitserver serves git repositories over HTTP on loopback, for tests of Flux sources: a
// bare repository per name, served by git's own `git http-backend` through net/http/cgi, and
// commits made with the git command line. It needs git on PATH and nothing else.
package gitserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server serves the bare repositories under its directory at URL/<name>.git.
type Server struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234.
	URL string
	dir string
	git string
	srv *http.Server
	mu  sync.Mutex // one commit at a time: each uses a work tree of its own, but pushes share refs
}

// Start serves the repositories kept in dir (created if needed) until Close.
func Start(dir string) (*Server, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the git server needs git: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), dir: dir, git: git}
	s.srv = &http.Server{Handler: &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env: []string{
			"GIT_PROJECT_ROOT=" + dir,
			// Serve every repository under the root, without a git-daemon-export-ok file in each.
			"GIT_HTTP_EXPORT_ALL=1",
		},
	}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// RepoURL is the clone URL of the named repository.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name + ".git" }

// Commit writes files (slash-separated path → content; nil content deletes the file) on branch
// of the named repository, creating either if needed, and returns the new commit's hash.
func (s *Server) Commit(ctx context.Context, repo, branch, message string, files map[string][]byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bare := filepath.Join(s.dir, repo+".git")
	if _, err := os.Stat(bare); errors.Is(err, os.ErrNotExist) {
		if _, err := s.run(ctx, "", "init", "--bare", "--initial-branch="+branch, bare); err != nil {
			return "", err
		}
	}
	work, err := os.MkdirTemp("", "gitserver-work-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	if _, err := s.run(ctx, work, "init", "--initial-branch="+branch); err != nil {
		return "", err
	}
	// The branch's current tree, if it has one, is the base of the commit.
	if _, err := s.run(ctx, work, "fetch", bare, branch); err == nil {
		if _, err := s.run(ctx, work, "reset", "--hard", "FETCH_HEAD"); err != nil {
			return "", err
		}
	}
	for name, data := range files {
		path := filepath.Join(work, filepath.FromSlash(name))
		if data == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return "", err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return "", err
		}
	}
	if _, err := s.run(ctx, work, "add", "--all"); err != nil {
		return "", err
	}
	if _, err := s.run(ctx, work, "-c", "user.name=Stagecoach tests", "-c", "user.email=tests@stagecoach.invalid",
		"commit", "--allow-empty", "-m", message); err != nil {
		return "", err
	}
	if _, err := s.run(ctx, work, "push", bare, "HEAD:refs/heads/"+branch); err != nil {
		return "", err
	}
	out, err := s.run(ctx, work, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

func (s *Server) run(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, s.git, args...)
	cmd.Dir = dir
	// The user's git configuration (signing, hooks, templates) has no say in the tests' repositories.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
