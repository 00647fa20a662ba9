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

package helm

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Errors a caller may want to tell apart. They are wrapped: test with errors.Is.
var (
	// ErrChartNotFound: the repository has no chart of that name.
	ErrChartNotFound = errors.New("chart not found")
	// ErrVersionNotFound: the chart has no version matching chartVersion.
	ErrVersionNotFound = errors.New("chart version not found")
	// ErrInvalidValues: the values are not YAML, fail the chart's schema, or make a template fail.
	ErrInvalidValues = errors.New("invalid values")
	// ErrBadChart: the archive is not a loadable chart, or its digest differs from the index.
	ErrBadChart = errors.New("bad chart archive")
	// ErrInvalidSpec: the HelmChart itself cannot be acted on (unsupported repository kind, …).
	ErrInvalidSpec = errors.New("invalid helm chart spec")
	// ErrSourceRefused: the chart's repository or registry is a host, or resolves to an
	// address, that the source policy of the profile's owner refuses (sources.go).
	ErrSourceRefused = errors.New("chart source refused")
)

// permanentError marks an error that retrying the same spec cannot fix: the user must change
// the HelmChart (or its values) first.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// permanent wraps err so that IsPermanent reports true. nil stays nil.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err cannot be fixed by retrying the same spec: chart or version
// not found, invalid values, a bad chart archive, a manifest the API server rejects as invalid.
// Everything else (network, API server unavailable, timeouts, conflicts) is worth retrying.
func IsPermanent(err error) bool {
	var p *permanentError
	if errors.As(err, &p) {
		return true
	}
	for _, sentinel := range []error{ErrChartNotFound, ErrVersionNotFound, ErrInvalidValues, ErrBadChart, ErrInvalidSpec, ErrSourceRefused} {
		if errors.Is(err, sentinel) {
			return true
		}
	}
	return false
}

// ConflictError says that a release of the same name and namespace belongs to someone else.
// It is not permanent: the release may be freed (its owner deleted, its tier changed).
type ConflictError struct {
	Release   string
	Namespace string
	// Owner is the owner recorded on the release; empty when the release was not installed by
	// Stagecoach (a helm CLI user, another controller).
	Owner string
}

func (e *ConflictError) Error() string {
	if e.Owner == "" {
		return fmt.Sprintf("helm release %s/%s exists and is not managed by Stagecoach; set takeOwnership to adopt it",
			e.Namespace, e.Release)
	}
	return fmt.Sprintf("helm release %s/%s is managed by %s", e.Namespace, e.Release, e.Owner)
}

// IsConflict reports whether err is a *ConflictError.
func IsConflict(err error) bool {
	var c *ConflictError
	return errors.As(err, &c)
}

// classifyActionError marks the errors of a Helm action that the API server gives for a
// manifest it will never accept (invalid objects, unknown fields) as permanent. Helm joins and
// wraps them, and some only survive as text, hence the string checks.
func classifyActionError(err error) error {
	if err == nil || IsPermanent(err) {
		return err
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return permanent(err)
	}
	msg := err.Error()
	for _, marker := range []string{"error validating data", "is invalid:", "user supplied labels contains system reserved label"} {
		if strings.Contains(msg, marker) {
			return permanent(err)
		}
	}
	return err
}
