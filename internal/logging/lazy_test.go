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

package logging

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	uzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

var timestamps = regexp.MustCompile(`"ts":[0-9.e+]+,`)

// TestLazyWritesWhatZapWrites: the same calls give the same lines, values, names, levels,
// errors and caller included.
func TestLazyWritesWhatZapWrites(t *testing.T) {
	write := func(lazy bool) string {
		var buf bytes.Buffer
		l := zap.New(zap.WriteTo(&buf), zap.UseDevMode(false), zap.JSONEncoder(), zap.Level(zapcore.Level(-1)),
			zap.RawZapOpts(uzap.AddCaller()))
		if lazy {
			l = Lazy(l)
		}
		r := l.WithName("summary").WithValues("namespace", "fleet", "name", "a").WithValues("reconcileID", "1")
		r.Info("deployed", "feature", "Helm")
		r.V(1).Info("detail")
		r.V(2).Info("hidden")
		r.WithName("helm").Error(errors.New("boom"), "failed", "attempt", 2)
		l.Info("bare")
		return timestamps.ReplaceAllString(buf.String(), "")
	}
	plain, lazy := write(false), write(true)
	if plain != lazy {
		t.Fatalf("zap wrote\n%s\nthrough Lazy\n%s", plain, lazy)
	}
	if !strings.Contains(lazy, `"reconcileID":"1","feature":"Helm"`) || strings.Contains(lazy, "hidden") {
		t.Fatalf("unexpected lines:\n%s", lazy)
	}
}

// BenchmarkReconcileLogger: the logger controller-runtime builds for each reconcile, which
// usually logs nothing.
func BenchmarkReconcileLogger(b *testing.B) {
	for _, lazy := range []bool{false, true} {
		name := "zap"
		if lazy {
			name = "lazy"
		}
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			l := zap.New(zap.WriteTo(&buf))
			if lazy {
				l = Lazy(l)
			}
			b.ReportAllocs()
			for b.Loop() {
				r := l.WithValues("controller", "clustersummary", "ClusterSummary", map[string]string{"name": "a", "namespace": "fleet"},
					"namespace", "fleet", "name", "a", "reconcileID", "0f1e2d3c")
				r.V(1).Info("not written")
			}
		})
	}
}
