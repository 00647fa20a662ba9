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

package render

import (
	"cmp"
	"encoding/base64"
	"maps"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// SecretValues are the values a profile took from Secrets (helmCharts' and
// kustomizationRefs' valuesFrom), each with the Secret it came from, so that what the
// profile reports (a dry run's diffs) can be cut of them: a chart may well put a value from a
// Secret into a ConfigMap or an environment variable, where diffs show it. Values shorter than
// MinSecretValue are left, since they would cut every short word of a report.
type SecretValues map[string]string

// MinSecretValue is the length from which a value from a Secret is redacted in reports.
const MinSecretValue = 4

// With adds the values of srcs that are Secrets: each key's content as it is, the string
// leaves of its YAML, and their base64 encodings.
func (v SecretValues) With(srcs ...Source) SecretValues {
	for _, src := range srcs {
		if src.Kind != "Secret" {
			continue
		}
		if v == nil {
			v = SecretValues{}
		}
		from := "(redacted: from Secret " + src.Namespace + "/" + src.Name + ")"
		add := func(s string) {
			for _, s := range []string{s, strings.TrimSpace(s), base64.StdEncoding.EncodeToString([]byte(s))} {
				if len(s) >= MinSecretValue {
					v[s] = from
				}
			}
		}
		for _, data := range src.Data {
			add(string(data))
			var doc any
			if yaml.Unmarshal(data, &doc) == nil {
				leaves(doc, add)
			}
		}
	}
	return v
}

// Join adds the values of other.
func (v SecretValues) Join(other SecretValues) SecretValues {
	if len(other) == 0 {
		return v
	}
	if v == nil {
		v = SecretValues{}
	}
	maps.Copy(v, other)
	return v
}

func leaves(doc any, add func(string)) {
	switch x := doc.(type) {
	case string:
		add(x)
	case map[string]any:
		for _, e := range x {
			leaves(e, add)
		}
	case []any:
		for _, e := range x {
			leaves(e, add)
		}
	}
}

// Redact replaces every value from a Secret in text, the longest first.
func (v SecretValues) Redact(text string) string {
	if len(v) == 0 {
		return text
	}
	values := make([]string, 0, len(v))
	for s := range v {
		values = append(values, s)
	}
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(values))
	for _, s := range values {
		pairs = append(pairs, s, v[s])
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// Hide returns err with the values from Secrets cut from its message; errors.Is and
// errors.As still see err. A Helm template calling fail, an API server refusing a value, quote
// the values they fail on.
func (v SecretValues) Hide(err error) error {
	if err == nil || len(v) == 0 {
		return err
	}
	msg := v.Redact(err.Error())
	if msg == err.Error() {
		return err
	}
	return &hidden{msg: msg, err: err}
}

type hidden struct {
	msg string
	err error
}

func (h *hidden) Error() string { return h.msg }
func (h *hidden) Unwrap() error { return h.err }

var yamlLine = regexp.MustCompile(`line \d+`)

// contentError is err about src's content, fit for status and events: the errors of YAML and
// template parsers quote what they stumble on, so for a Secret only where they stumbled is
// kept.
func contentError(src Source, err error) string {
	if src.Kind != "Secret" {
		return err.Error()
	}
	where := ""
	if m := yamlLine.FindString(err.Error()); m != "" {
		where = " at " + m
	}
	return "it fails to parse" + where + " (the parser's message is not shown: it would quote the Secret)"
}
