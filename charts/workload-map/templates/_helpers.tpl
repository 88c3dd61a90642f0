{{- define "workload-map.fullname" -}}
{{- if contains "workload-map" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-workload-map" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "workload-map.labels" -}}
app.kubernetes.io/name: workload-map
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "workload-map.selector" -}}
app.kubernetes.io/name: workload-map
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* `wmap serve` pods: a name of their own, so that neither the operator's Deployment nor its webhook
Service ever selects them. */}}
{{- define "workload-map.serveSelector" -}}
app.kubernetes.io/name: workload-map-serve
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "workload-map.webhookService" -}}
{{- printf "%s-webhook" (include "workload-map.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "workload-map.certSecret" -}}
{{- printf "%s-webhook-tls" (include "workload-map.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Secret holding `wmap serve`'s token (key `token`): the user's, or the one the chart creates. */}}
{{- define "workload-map.serveTokenSecret" -}}
{{- .Values.serve.token.existingSecret | default (printf "%s-serve-token" (include "workload-map.fullname" .)) -}}
{{- end }}
