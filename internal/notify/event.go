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

package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TypePrefix starts every event type.
const TypePrefix = "dev.stagecoach."

// The event types.
const (
	TypeApprovalNeeded   = TypePrefix + "approval.needed"
	TypeStageBlocked     = TypePrefix + "stage.blocked"
	TypeStageFailed      = TypePrefix + "stage.failed"
	TypeVersionCompleted = TypePrefix + "version.completed"
	TypeRollbackStarted  = TypePrefix + "rollback.started"
	TypeRollbackFinished = TypePrefix + "rollback.finished"
)

// ShortTypes are the types as endpoints.yaml names them.
func ShortTypes() []string {
	return []string{"approval.needed", "stage.blocked", "stage.failed", "version.completed", "rollback.started", "rollback.finished"}
}

// Object is the rollout an event is about.
type Object struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	UID        types.UID `json:"uid"`
}

// Event is one transition of a rollout.
type Event struct {
	// ID identifies the transition: the same transition always has the same id.
	ID string `json:"-"`
	// Type is one of the Type constants.
	Type string `json:"-"`
	// Time is when the transition happened, as status recorded it (or when it was seen).
	Time time.Time `json:"-"`

	Object  Object `json:"object"`
	Stage   string `json:"stage,omitempty"`
	Version string `json:"version,omitempty"`
	Message string `json:"message"`
	// Severity is "info", or "error" for failures.
	Severity string `json:"severity"`
}

// newEvent makes an event with its id: a hash of the object's UID, the version, the stage, the
// type and the attempt (what tells apart two transitions of one type on the same version and
// stage: when the version's rollout started, when the stage failed). Each is read from
// persisted status, so that a restarted controller deriving the same transition gives the same
// id, and a later transition of the same kind a new one.
func newEvent(obj Object, typ, version, stage string, attempt []string, at time.Time, msg string) Event {
	parts := append([]string{string(obj.UID), version, stage, typ}, attempt...)
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	sev := "info"
	if typ == TypeStageFailed || typ == TypeStageBlocked {
		sev = "error"
	}
	return Event{ID: hex.EncodeToString(h[:16]), Type: typ, Time: at, Object: obj, Stage: stage, Version: version, Message: msg, Severity: sev}
}

// stamp writes a time of status for an id: to the second, as the API server keeps it; "" for
// none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Subject names the object as "Kind namespace/name".
func (e Event) Subject() string {
	if e.Object.Namespace == "" {
		return e.Object.Kind + " " + e.Object.Name
	}
	return e.Object.Kind + " " + e.Object.Namespace + "/" + e.Object.Name
}
