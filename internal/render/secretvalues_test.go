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
	"errors"
	"strings"
	"testing"
)

func TestSecretValuesRedact(t *testing.T) {
	v := SecretValues{}.With(
		Source{Kind: "Secret", Namespace: "apps", Name: "db", Data: map[string][]byte{
			"values.yaml": []byte("db:\n  password: hunter22\n  port: 5432\n  tls: true\n  user: ab\n"),
		}},
		Source{Kind: "Secret", Namespace: "apps", Name: "token", Data: map[string][]byte{"TOKEN": []byte("tok-123456\n")}},
		Source{Kind: "ConfigMap", Namespace: "apps", Name: "plain", Data: map[string][]byte{"values.yaml": []byte("image: nginx-public")}},
	)
	for _, tc := range []struct{ name, in, want string }{
		{"leaf in a diff", `~ data.DB_PASSWORD: "old" -> "hunter22"`, `~ data.DB_PASSWORD: "old" -> "(redacted: from Secret apps/db)"`},
		{"base64 in a diff", `+ data.password: "aHVudGVyMjI="`, `+ data.password: "(redacted: from Secret apps/db)"`},
		{"a whole key's content", `+ spec.env[0].value: "tok-123456"`, `+ spec.env[0].value: "(redacted: from Secret apps/token)"`},
		{"short values stay", `+ data.user: "ab"`, `+ data.user: "ab"`},
		{"ConfigMap values stay", `+ spec.image: "nginx-public"`, `+ spec.image: "nginx-public"`},
		{"numbers are not strings", `+ spec.port: 5432`, `+ spec.port: 5432`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.Redact(tc.in); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if got := SecretValues(nil).Redact("hunter22"); got != "hunter22" {
		t.Errorf("no values changed the text: %s", got)
	}
}

// TestSecretContentErrorsNotQuoted: a parse error about a Secret's content says where, not
// what; about a ConfigMap's it says both.
func TestSecretContentErrorsNotQuoted(t *testing.T) {
	// The YAML parsers quote what they fail on: yaml.v3 says "cannot unmarshal !!str `hunter22`".
	err := errors.New("yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `hunter22` into map[string]interface {}")
	secret := Source{Kind: "Secret", Namespace: "apps", Name: "db"}
	if msg := contentError(secret, err); strings.Contains(msg, "hunter22") {
		t.Errorf("message quotes the Secret: %s", msg)
	}
	if msg := contentError(secret, errors.New("yaml: line 3: could not find expected ':' near hunter22")); !strings.Contains(msg, "line 3") ||
		strings.Contains(msg, "hunter22") {
		t.Errorf("message %q should say the line and not the content", msg)
	}
	if msg := contentError(Source{Kind: "ConfigMap"}, err); !strings.Contains(msg, "hunter22") {
		t.Errorf("a ConfigMap's error lost its detail: %s", msg)
	}
}

// TestSecretValuesHide: an error quoting a value from a Secret (a chart's template calling
// fail with it) loses the value and keeps what it is.
func TestSecretValuesHide(t *testing.T) {
	v := SecretValues{}.With(Source{Kind: "Secret", Namespace: "apps", Name: "db", Data: map[string][]byte{"v": []byte("password: hunter22")}})
	base := permanent(errors.New("chart web: the templates fail with them: error calling fail: bad password hunter22"))
	err := v.Hide(base)
	if strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "(redacted: from Secret apps/db)") {
		t.Errorf("got %q", err)
	}
	if !IsPermanent(err) || !errors.Is(err, base) {
		t.Error("the hidden error is no longer what it was")
	}
	if plain := errors.New("no values here"); v.Hide(plain) != plain || v.Hide(nil) != nil {
		t.Error("an error without values changed")
	}
}
