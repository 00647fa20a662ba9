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

// Package logging adapts the controller's logger.
package logging

import (
	"slices"

	"github.com/go-logr/logr"
)

// Lazy returns l with WithValues deferred: the key/value pairs are kept and handed to l's sink
// only when a line is written. zap encodes them the moment they are given, and
// controller-runtime gives every reconcile a logger carrying the object and a reconcile ID; at
// fleet scale, encoding those for reconciles that log nothing was a twentieth of everything the
// controller allocated. Lines come out as they did: the values given earlier first.
func Lazy(l logr.Logger) logr.Logger {
	sink := l.GetSink()
	if sink == nil {
		return l
	}
	if d, ok := sink.(logr.CallDepthLogSink); ok {
		// Lines are written one frame deeper, through lazySink.
		sink = d.WithCallDepth(1)
	}
	return logr.New(&lazySink{sink: sink})
}

type lazySink struct {
	sink   logr.LogSink
	values []any
}

var _ logr.CallDepthLogSink = (*lazySink)(nil)

// Init does nothing: the wrapped sink was initialised by the logger it came from.
func (l *lazySink) Init(logr.RuntimeInfo) {}

func (l *lazySink) Enabled(level int) bool { return l.sink.Enabled(level) }

func (l *lazySink) Info(level int, msg string, kv ...any) {
	l.sink.Info(level, msg, l.with(kv)...)
}

func (l *lazySink) Error(err error, msg string, kv ...any) {
	l.sink.Error(err, msg, l.with(kv)...)
}

func (l *lazySink) WithValues(kv ...any) logr.LogSink {
	return &lazySink{sink: l.sink, values: l.with(kv)}
}

func (l *lazySink) WithName(name string) logr.LogSink {
	return &lazySink{sink: l.sink.WithName(name), values: l.values}
}

func (l *lazySink) WithCallDepth(depth int) logr.LogSink {
	sink := l.sink
	if d, ok := sink.(logr.CallDepthLogSink); ok {
		sink = d.WithCallDepth(depth)
	}
	return &lazySink{sink: sink, values: l.values}
}

func (l *lazySink) with(kv []any) []any {
	if len(l.values) == 0 {
		return kv
	}
	if len(kv) == 0 {
		return l.values
	}
	return append(slices.Clip(l.values), kv...)
}
