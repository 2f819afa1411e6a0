{{/* Names, labels and shared blocks of the Strongroom chart. */}}

{{- define "strongroom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "strongroom.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "strongroom.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "strongroom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "strongroom.api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "strongroom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: api
{{- end -}}

{{- define "strongroom.operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "strongroom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "strongroom.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "strongroom.api.serviceAccountName" -}}
{{- default (printf "%s-api" (include "strongroom.fullname" .)) .Values.api.serviceAccount.name -}}
{{- end -}}

{{- define "strongroom.operator.serviceAccountName" -}}
{{- default (printf "%s-operator" (include "strongroom.fullname" .)) .Values.operator.serviceAccount.name -}}
{{- end -}}

{{- define "strongroom.rootTokenSecretName" -}}
{{- default (printf "%s-root-token" (include "strongroom.fullname" .)) .Values.rootToken.existingSecret -}}
{{- end -}}

{{- define "strongroom.wrappingKeySecretName" -}}
{{- default (printf "%s-wrapping-key" (include "strongroom.fullname" .)) .Values.wrappingKey.existingSecret -}}
{{- end -}}

{{- define "strongroom.databaseSecretName" -}}
{{- default (printf "%s-database" (include "strongroom.fullname" .)) .Values.database.existingSecret -}}
{{- end -}}

{{- define "strongroom.s3SecretName" -}}
{{- default (printf "%s-s3" (include "strongroom.fullname" .)) .Values.files.s3.existingSecret -}}
{{- end -}}

{{- define "strongroom.leaseName" -}}
{{- printf "%s-operator" (include "strongroom.fullname" .) -}}
{{- end -}}

{{/*
The restricted Pod Security Standard, for every container.
*/}}
{{- define "strongroom.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
What the operator may do in the namespaces it watches: exactly the calls it makes, nothing more.
Keep these rules free of template logic: test/operator reads them from this file and runs the operator under
them against the Kubernetes API double, and test/chart checks them against every call the operator makes.
*/}}
{{- define "strongroom.operator.rules" }}
- apiGroups: [strongroom.dev]
  resources: [tenants, roles]
  verbs: [get, list, watch, patch]
- apiGroups: [strongroom.dev]
  resources: [tenants/status, roles/status]
  verbs: [patch]
- apiGroups: [strongroom.dev]
  resources: [tenants/finalizers, roles/finalizers]
  verbs: [update]
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, create, update, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{/*
The leader election Lease, in the release namespace. Same rule as above: no template logic but the Lease's name.
*/}}
{{- define "strongroom.operator.leaseRules" }}
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [{{ include "strongroom.leaseName" . }}]
  verbs: [get, update]
{{- end }}
