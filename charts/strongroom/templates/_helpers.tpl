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

{{- define "strongroom.keysDatabaseSecretName" -}}
{{- default (printf "%s-keys-database" (include "strongroom.fullname" .)) .Values.keysDatabase.existingSecret -}}
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

{{/*
Where things live inside the api pod.
*/}}
{{- define "strongroom.paths.run" -}}/run/strongroom{{- end -}}
{{- define "strongroom.paths.data" -}}/var/lib/strongroom{{- end -}}
{{- define "strongroom.paths.files" -}}/var/lib/strongroom-files{{- end -}}
{{- define "strongroom.paths.wrappingKey" -}}/var/run/secrets/strongroom/wrapping-key{{- end -}}
{{- define "strongroom.paths.rootToken" -}}/var/run/secrets/strongroom/root-token{{- end -}}

{{/*
Settings that cannot be expressed in values.schema.json: combinations that would leave pods stuck or data split.
*/}}
{{- define "strongroom.validate" -}}
{{- $many := or (gt (int .Values.api.replicas) 1) .Values.api.autoscaling.enabled -}}
{{- if and .Values.database.embedded $many -}}
{{- fail "database.embedded runs PGlite inside one pod: set api.replicas to 1 and api.autoscaling.enabled to false, or use an external PostgreSQL" -}}
{{- end -}}
{{- if and .Values.database.embedded (ne .Values.keyring.source "persistentVolume") -}}
{{- fail "database.embedded keeps its data on the keyring volume: set keyring.source to persistentVolume" -}}
{{- end -}}
{{- if and (not .Values.database.embedded) (not .Values.database.url) (not .Values.database.existingSecret) -}}
{{- fail "set database.url or database.existingSecret (PostgreSQL 15+), or database.embedded: true to try Strongroom out" -}}
{{- end -}}
{{- if and $many (eq .Values.keyring.source "persistentVolume") (not .Values.keyring.persistence.existingClaim) (not (has "ReadWriteMany" .Values.keyring.persistence.accessModes)) -}}
{{- fail "more than one api pod shares one keyring: give keyring.persistence.accessModes ReadWriteMany, or use keyring.source secret" -}}
{{- end -}}
{{- if and $many (eq .Values.files.store "local") (not .Values.files.local.persistence.existingClaim) (not (has "ReadWriteMany" .Values.files.local.persistence.accessModes)) -}}
{{- fail "more than one api pod shares the file store: give files.local.persistence.accessModes ReadWriteMany, or use files.store s3" -}}
{{- end -}}
{{- if and (eq .Values.keyring.source "secret") (not .Values.keyring.existingSecret) -}}
{{- fail "keyring.source secret needs keyring.existingSecret" -}}
{{- end -}}
{{- if and (eq .Values.files.store "s3") (not .Values.files.s3.bucket) -}}
{{- fail "files.store s3 needs files.s3.bucket" -}}
{{- end -}}
{{- end -}}

{{/*
The tokenizer container: the only holder of key material, beside the api in every api pod.
*/}}
{{- define "strongroom.tokenizer.container" -}}
- name: tokenizer
  image: {{ include "strongroom.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command: [node, dist/tokenizer/main.js]
  ports:
    - { name: tok-metrics, containerPort: {{ .Values.tokenizer.metricsPort }}, protocol: TCP }
  env:
    - { name: STRONGROOM_DATA_DIR, value: {{ include "strongroom.paths.data" . | quote }} }
    - { name: STRONGROOM_TOKENIZER_SOCKET, value: {{ printf "%s/tokenizer.sock" (include "strongroom.paths.run" .) | quote }} }
    - { name: STRONGROOM_WRAPPING_KEY_FILE, value: {{ printf "%s/key" (include "strongroom.paths.wrappingKey" .) | quote }} }
    - { name: STRONGROOM_TOKENIZER_METRICS_PORT, value: {{ .Values.tokenizer.metricsPort | quote }} }
    - { name: STRONGROOM_LOG_LEVEL, value: {{ .Values.tokenizer.logLevel | quote }} }
  startupProbe:
    httpGet: { path: /metrics, port: tok-metrics }
    periodSeconds: 1
    failureThreshold: 60
  livenessProbe:
    httpGet: { path: /metrics, port: tok-metrics }
    periodSeconds: 10
    failureThreshold: 3
  resources:
    {{- toYaml .Values.tokenizer.resources | nindent 4 }}
  securityContext:
    {{- include "strongroom.containerSecurityContext" . | nindent 4 }}
  volumeMounts:
    - { name: run, mountPath: {{ include "strongroom.paths.run" . }} }
    - { name: tmp, mountPath: /tmp }
    - { name: data, mountPath: {{ include "strongroom.paths.data" . }} }
    - { name: wrapping-key, mountPath: {{ include "strongroom.paths.wrappingKey" . }}, readOnly: true }
{{- end -}}
