{{/* tested.job renders a Job that succeeds, or fails within seconds when .fail is true. */}}
{{- define "tested.job" -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .name }}
  annotations:
    helm.sh/hook: {{ .hook }}
spec:
  backoffLimit: 0
  {{- if .fail }}
  activeDeadlineSeconds: 1
  {{- end }}
  template:
    spec:
      restartPolicy: Never
      {{- if .fail }}
      nodeSelector:
        stagecoach.dev/no-such-node: "true"
      {{- end }}
      containers:
      - name: check
        image: registry.example/check:latest
{{- end -}}
