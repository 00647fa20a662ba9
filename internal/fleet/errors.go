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

package fleet

import (
	"errors"
	"fmt"
)

// Reasons a managed cluster cannot be used. They are CamelCase so that they can serve as
// condition reasons as they are.
const (
	// ReasonKubeconfigNotFound: the cluster does not say where its kubeconfig is, or the Secret or
	// key it names does not exist.
	ReasonKubeconfigNotFound = "KubeconfigNotFound"
	// ReasonKubeconfigInvalid: the kubeconfig exists but cannot be used as it is.
	ReasonKubeconfigInvalid = "KubeconfigInvalid"
	// ReasonUnsupported: the cluster asks for a way of connecting that Stagecoach does not offer.
	ReasonUnsupported = "Unsupported"
	// ReasonUnreachable: the API server did not answer, or refused the request.
	ReasonUnreachable = "Unreachable"
)

// ClusterError says why a managed cluster cannot be used, in words the cluster's owner can act on.
// Its message may name the kubeconfig Secret, its key and the API server URL, never anything read
// from the Secret's values, so it is safe in status, events and logs.
//
// Errors of any other type coming from this package are trouble reading the management cluster:
// retry them, don't blame the managed cluster for them.
type ClusterError struct {
	Ref     ClusterRef
	Reason  string
	Message string
}

func (e *ClusterError) Error() string { return e.Message }

// AsClusterError returns the ClusterError in err's chain, if there is one.
func AsClusterError(err error) (*ClusterError, bool) {
	var ce *ClusterError
	ok := errors.As(err, &ce)
	return ce, ok
}

func clusterErrorf(ref ClusterRef, reason, format string, args ...any) *ClusterError {
	return &ClusterError{Ref: ref, Reason: reason, Message: fmt.Sprintf(format, args...)}
}
