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

package fleetsim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The options of a request are in its query. The generated conversions read them exactly as an
// API server does.

func (q *request) listOptions() (*metav1.ListOptions, error) {
	var opts metav1.ListOptions
	if err := metav1.Convert_url_Values_To_v1_ListOptions(&q.query, &opts, nil); err != nil {
		return nil, errBadRequest("%v", err)
	}
	return &opts, nil
}

func (q *request) createOptions() (*metav1.CreateOptions, error) {
	var opts metav1.CreateOptions
	if err := metav1.Convert_url_Values_To_v1_CreateOptions(&q.query, &opts, nil); err != nil {
		return nil, errBadRequest("%v", err)
	}
	return &opts, nil
}

func (q *request) updateOptions() (*metav1.UpdateOptions, error) {
	var opts metav1.UpdateOptions
	if err := metav1.Convert_url_Values_To_v1_UpdateOptions(&q.query, &opts, nil); err != nil {
		return nil, errBadRequest("%v", err)
	}
	return &opts, nil
}

func (q *request) patchOptions() (*metav1.PatchOptions, error) {
	var opts metav1.PatchOptions
	if err := metav1.Convert_url_Values_To_v1_PatchOptions(&q.query, &opts, nil); err != nil {
		return nil, errBadRequest("%v", err)
	}
	return &opts, nil
}
