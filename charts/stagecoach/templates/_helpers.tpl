{{/* The release's full name, used for every object of the chart. */}}
{{- define "stagecoach.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "stagecoach.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "stagecoach.labels" -}}
{{ include "stagecoach.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "stagecoach.serviceAccountName" -}}
{{- default (include "stagecoach.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- /* "true" when the chart renders the MutatingAdmissionPolicy that stamps approvers
(approval-policy.yaml): only then does the controller trust those stamps (--record-approvers). */ -}}
{{- define "stagecoach.recordApprovers" -}}
{{- $served := or (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy") (semverCompare ">=1.36.0-0" .Capabilities.KubeVersion.Version) }}
{{- if and .Values.approvals.recordApprover $served }}true{{ end -}}
{{- end -}}
