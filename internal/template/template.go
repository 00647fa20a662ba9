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

// Package template instantiates Sveltos templates: Go text/template with sprig's functions and
// Sveltos' own, run per cluster over the cluster's object and the management-cluster objects
// named by a profile's templateResourceRefs. It is pure: the caller reads the objects, this
// package only turns text and data into text.
package template

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Annotations of referenced ConfigMaps and Secrets, and of profiles, that Sveltos reads.
const (
	// TemplateAnnotation marks a ConfigMap or Secret whose content is a template; its presence
	// counts, not its value.
	TemplateAnnotation = "projectsveltos.io/template"
	// LuaAnnotation marks content produced by a Lua script; Stagecoach refuses it.
	LuaAnnotation = "projectsveltos.io/lua"
	// TextTemplateAnnotation on a profile picks sprig's text function map instead of its
	// default one in Sveltos; both hold the same functions here, so it changes nothing.
	TextTemplateAnnotation = "projectsveltos.io/tex-template"
)

// IsTemplate reports whether content carrying these annotations is a template.
func IsTemplate(annotations map[string]string) bool {
	_, ok := annotations[TemplateAnnotation]
	return ok
}

// IsLua reports whether content carrying these annotations is a Lua script.
func IsLua(annotations map[string]string) bool {
	_, ok := annotations[LuaAnnotation]
	return ok
}

// Data is what a template reads, under the names Sveltos gives it: .Cluster (the cluster's
// object as a map), .MgmtResources.<identifier> (each templateResourceRefs object that
// exists), and .ClusterNamespace and .ClusterName. KubeadmControlPlane and
// InfrastructureProvider exist for Cluster API clusters in Sveltos; here they are always empty.
type Data struct {
	Cluster                       map[string]any
	ClusterNamespace, ClusterName string
	KubeadmControlPlane           map[string]any
	InfrastructureProvider        map[string]any
	MgmtResources                 map[string]map[string]any
}

// NewData makes the data of a cluster's templates from its object (a SveltosCluster) and the
// objects of templateResourceRefs by identifier; an optional object that does not exist is
// left out (getResource then gives nil).
func NewData(cluster runtime.Object, resources map[string]*unstructured.Unstructured) (Data, error) {
	var d Data
	if cluster != nil {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cluster)
		if err != nil {
			return d, fmt.Errorf("reading the cluster object: %w", err)
		}
		d.Cluster = u
		obj := unstructured.Unstructured{Object: u}
		d.ClusterNamespace, d.ClusterName = obj.GetNamespace(), obj.GetName()
	}
	if len(resources) > 0 {
		d.MgmtResources = make(map[string]map[string]any, len(resources))
		for id, u := range resources {
			if u != nil {
				d.MgmtResources[id] = u.Object
			}
		}
	}
	return d, nil
}

// Error is a template that failed to parse or to run. Its message is the template engine's,
// which names the template and the line ("template: NAME:3:12: ...").
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// IsError reports whether err is a template's failure: retrying the same template and data
// cannot fix it.
func IsError(err error) bool {
	var te *Error
	return errors.As(err, &te)
}

// Instantiate runs text as a template called name over data, with missing map keys an error
// as in Sveltos. Text without "{{" is returned as it is.
func Instantiate(name, text string, data Data) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	pool := parsedPool(name, text)
	b, _ := pool.Get().(*bound)
	if b == nil {
		b = &bound{data: &Data{}}
		tmpl, err := template.New(name).Option("missingkey=error").Funcs(funcMap(b.data)).Parse(text)
		if err != nil {
			return "", &Error{err}
		}
		b.tmpl = tmpl
	}
	*b.data = data
	var out bytes.Buffer
	err := b.tmpl.Execute(&out, data)
	*b.data = Data{}
	pool.Put(b)
	if err != nil {
		return "", &Error{err}
	}
	return out.String(), nil
}

// bound is a parsed template whose functions read the data data points to: the data of the
// one call running it.
type bound struct {
	tmpl *template.Template
	data *Data
}

// parsed holds, by template name and text, a pool of bound templates ready to run. A rollout
// runs the same template once per cluster, and parsing it and building its functions (sprig's,
// each checked by reflection) cost more than running it. It is emptied when it holds
// maxParsed texts, so that templates no longer used do not pile up.
var (
	parsed      sync.Map // parsedKey → *sync.Pool of *bound
	parsedCount atomic.Int64
)

const maxParsed = 1024

type parsedKey struct{ name, text string }

func parsedPool(name, text string) *sync.Pool {
	key := parsedKey{name, text}
	if p, ok := parsed.Load(key); ok {
		return p.(*sync.Pool)
	}
	if parsedCount.Add(1) > maxParsed {
		parsed.Clear()
		parsedCount.Store(1)
	}
	p, _ := parsed.LoadOrStore(key, &sync.Pool{})
	return p.(*sync.Pool)
}
