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

package manifests

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PermanentError is a failure that retrying the same request cannot fix: the input must change
// (a malformed manifest, an object the server rejects, a kind the cluster does not serve).
type PermanentError struct {
	Err error
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

func permanentf(format string, args ...any) error {
	return &PermanentError{Err: fmt.Errorf(format, args...)}
}

// IsPermanent reports whether retrying cannot fix err. Everything else (connection errors,
// timeouts, 5xx, 429, optimistic-lock conflicts, Forbidden) is worth retrying: Forbidden is
// not permanent because RBAC, quotas and admission policies change without the input changing.
// An error joining several is permanent only if all of them are, since a retry would make
// progress on the others.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs := joined.Unwrap()
		for _, e := range errs {
			if !IsPermanent(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	if isPermanentNode(err) {
		return true
	}
	return IsPermanent(errors.Unwrap(err))
}

// isPermanentNode classifies err itself, not what it wraps.
func isPermanentNode(err error) bool {
	switch err.(type) {
	case *PermanentError, *ParseError, *meta.NoKindMatchError, *meta.NoResourceMatchError:
		return true
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return false
	}
	switch status.Status().Reason {
	case metav1.StatusReasonInvalid, metav1.StatusReasonBadRequest, metav1.StatusReasonMethodNotAllowed,
		metav1.StatusReasonNotAcceptable, metav1.StatusReasonUnsupportedMediaType,
		metav1.StatusReasonRequestEntityTooLarge:
		return true
	}
	return false
}

// isImmutable reports whether the server refused an update because it changes a field that
// cannot change once set.
func isImmutable(err error) bool {
	if !apierrors.IsInvalid(err) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "immutable") || strings.Contains(msg, "cannot change") ||
		strings.Contains(msg, "may not change once set")
}

// isNamespaceTerminating reports a write refused because its namespace is being deleted: it
// succeeds once the namespace is gone and recreated.
func isNamespaceTerminating(err error) bool {
	return apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}

// ConflictError fails a request whose objects another owner deploys with a winning tier, when
// the request does not continue on conflict. Nothing was written.
type ConflictError struct {
	Conflicts []Conflict
}

func (e *ConflictError) Error() string {
	msgs := make([]string, 0, len(e.Conflicts))
	for _, c := range e.Conflicts {
		msgs = append(msgs, c.Message)
	}
	return fmt.Sprintf("%d object(s) deployed by other owners: %s", len(e.Conflicts), strings.Join(msgs, "; "))
}
