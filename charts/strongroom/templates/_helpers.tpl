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

{{/*
CloudNativePG: the Cluster, the Secret it generates for the database owner, the Service the api connects to.
*/}}
{{- define "strongroom.cnpg.clusterName" -}}
{{- default (printf "%s-db" (include "strongroom.fullname" .)) .Values.database.cnpg.clusterName -}}
{{- end -}}

{{- define "strongroom.cnpg.appSecretName" -}}
{{- printf "%s-app" (include "strongroom.cnpg.clusterName" .) -}}
{{- end -}}

{{- define "strongroom.cnpg.poolerName" -}}
{{- default (printf "%s-pooler-rw" (include "strongroom.cnpg.clusterName" .)) .Values.database.cnpg.pooler.name -}}
{{- end -}}

{{- define "strongroom.cnpg.host" -}}
{{- if .Values.database.cnpg.pooler.enabled -}}
{{- include "strongroom.cnpg.poolerName" . -}}
{{- else -}}
{{- printf "%s-rw" (include "strongroom.cnpg.clusterName" .) -}}
{{- end -}}
{{- end -}}

{{/*
The api's DATABASE_URL for the CloudNativePG Cluster. $(CNPG_APP_USER) and $(CNPG_APP_PASSWORD) are expanded by
Kubernetes from the env entries before it (CNPG generates an alphanumeric password, safe in a URL). uselibpqcompat
makes sslmode mean what it means to libpq (require: encrypted; verify-ca; verify-full: and the host name).
*/}}
{{- define "strongroom.cnpg.databaseUrl" -}}
{{- $cnpg := .Values.database.cnpg -}}
{{- $url := printf "postgres://$(CNPG_APP_USER):$(CNPG_APP_PASSWORD)@%s:5432/%s?uselibpqcompat=true&sslmode=%s" (include "strongroom.cnpg.host" .) $cnpg.database $cnpg.sslMode -}}
{{- if ne $cnpg.sslMode "disable" -}}
{{- $url = printf "%s&sslrootcert=%s/ca.crt" $url (include "strongroom.paths.databaseCa" .) -}}
{{- end -}}
{{- $url -}}
{{- end -}}

{{- define "strongroom.cnpg.objectStoreName" -}}
{{- printf "%s-backups" (include "strongroom.cnpg.clusterName" .) -}}
{{- end -}}

{{/*
The object store of CloudNativePG backups: the same fields in the plugin's ObjectStore and the in-tree
spec.backup.barmanObjectStore.
*/}}
{{- define "strongroom.cnpg.objectStoreConfiguration" -}}
{{- $b := .Values.database.cnpg.backup -}}
destinationPath: {{ $b.destinationPath | quote }}
{{- with $b.endpointURL }}
endpointURL: {{ . | quote }}
{{- end }}
s3Credentials:
  {{- if $b.s3Credentials.inheritFromIAMRole }}
  inheritFromIAMRole: true
  {{- else }}
  accessKeyId: { name: {{ $b.s3Credentials.existingSecret }}, key: {{ $b.s3Credentials.accessKeyIdKey }} }
  secretAccessKey: { name: {{ $b.s3Credentials.existingSecret }}, key: {{ $b.s3Credentials.secretAccessKeyKey }} }
  {{- end }}
wal:
  compression: {{ $b.walCompression }}
data:
  compression: {{ $b.dataCompression }}
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
The one namespace the operator watches, and where its Role grants Secrets: operator.watchNamespace, else
"<release namespace>-tenants". Never the release namespace, which holds the vault's own Secrets (root token,
wrapping key): the validation refuses it. Not used with operator.clusterWide.
*/}}
{{- define "strongroom.operator.watchNamespace" -}}{{ default (printf "%s-tenants" .Release.Namespace) .Values.operator.watchNamespace }}{{- end -}}

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
{{- define "strongroom.paths.checkpoints" -}}/var/lib/strongroom-checkpoints{{- end -}}
{{- define "strongroom.paths.wrappingKey" -}}/var/run/secrets/strongroom/wrapping-key{{- end -}}
{{- define "strongroom.paths.hsmPin" -}}/var/run/secrets/strongroom/hsm-pin{{- end -}}
{{- define "strongroom.paths.rootToken" -}}/var/run/secrets/strongroom/root-token{{- end -}}
{{- define "strongroom.paths.databaseCa" -}}/var/run/secrets/strongroom/database-ca{{- end -}}

{{/*
Settings that cannot be expressed in values.schema.json: combinations that would leave pods stuck or data split.
*/}}
{{- define "strongroom.validate" -}}
{{- if and .Values.operator.clusterWide .Values.operator.watchNamespace -}}
{{- fail "operator.clusterWide watches every namespace: leave operator.watchNamespace unset, or clusterWide false" -}}
{{- end -}}
{{- if and .Values.operator.enabled (not .Values.operator.clusterWide) (eq (include "strongroom.operator.watchNamespace" .) .Release.Namespace) -}}
{{- fail "operator.watchNamespace must not be the release namespace: the operator's Role there would reach the vault's own Secrets (root token, wrapping key); choose another namespace" -}}
{{- end -}}
{{- $many := or (gt (int .Values.api.replicas) 1) .Values.api.autoscaling.enabled -}}
{{- if and .Values.database.embedded $many -}}
{{- fail "database.embedded runs PGlite inside one pod: set api.replicas to 1 and api.autoscaling.enabled to false, or use an external PostgreSQL" -}}
{{- end -}}
{{- if and .Values.database.embedded (ne .Values.keyring.source "persistentVolume") -}}
{{- fail "database.embedded keeps its data on the keyring volume: set keyring.source to persistentVolume" -}}
{{- end -}}
{{- $cnpg := .Values.database.cnpg -}}
{{- if and (not .Values.database.embedded) (not .Values.database.url) (not .Values.database.existingSecret) (not $cnpg.enabled) -}}
{{- fail "set database.url or database.existingSecret (PostgreSQL 15+), database.cnpg.enabled: true for a CloudNativePG Cluster, or database.embedded: true to try Strongroom out" -}}
{{- end -}}
{{- if and $cnpg.enabled (or .Values.database.embedded .Values.database.url .Values.database.existingSecret) -}}
{{- fail "database.cnpg.enabled creates the database: leave database.url, database.existingSecret and database.embedded unset" -}}
{{- end -}}
{{- if and $cnpg.enabled $cnpg.synchronous.enabled (gt (int $cnpg.synchronous.number) (sub (int $cnpg.instances) 1)) -}}
{{- fail "database.cnpg.synchronous.number must be at most database.cnpg.instances - 1 (the standbys that can confirm a commit)" -}}
{{- end -}}
{{- if and $cnpg.enabled $cnpg.backup.enabled (not $cnpg.backup.s3Credentials.inheritFromIAMRole) (not $cnpg.backup.s3Credentials.existingSecret) -}}
{{- fail "database.cnpg.backup needs s3Credentials.existingSecret or s3Credentials.inheritFromIAMRole" -}}
{{- end -}}
{{- if and $cnpg.enabled $cnpg.pooler.enabled $cnpg.createRole -}}
{{- fail "database.cnpg.pooler: PgBouncer refuses the startup option (options=-c role=...) with which the api opens each tenant's own connections; set database.cnpg.createRole to false (tenants isolated by schema only) or leave the Pooler off" -}}
{{- end -}}
{{- if and $cnpg.enabled $cnpg.pooler.enabled (eq (include "strongroom.cnpg.poolerName" .) (include "strongroom.cnpg.clusterName" .)) -}}
{{- fail "database.cnpg.pooler.name must differ from the Cluster's name" -}}
{{- end -}}
{{- if and $many (eq .Values.keyring.source "persistentVolume") (not .Values.keyring.persistence.existingClaim) (not (has "ReadWriteMany" .Values.keyring.persistence.accessModes)) -}}
{{- fail "more than one api pod shares one keyring: give keyring.persistence.accessModes ReadWriteMany, or use keyring.source secret" -}}
{{- end -}}
{{- if and $many (eq .Values.files.store "local") (not .Values.files.local.persistence.existingClaim) (not (has "ReadWriteMany" .Values.files.local.persistence.accessModes)) -}}
{{- fail "more than one api pod shares the file store: give files.local.persistence.accessModes ReadWriteMany, or use files.store s3" -}}
{{- end -}}
{{- if and .Values.auditCheckpoints.requireTarget (not .Values.auditCheckpoints.persistence.existingClaim) (not .Values.auditCheckpoints.s3.bucket) -}}
{{- fail "auditCheckpoints.requireTarget: set auditCheckpoints.s3.bucket (with Object Lock) or auditCheckpoints.persistence.existingClaim, so that checkpoints leave the database" -}}
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
    {{- if eq .Values.custody.provider "pkcs11" }}
    {{- include "strongroom.tokenizer.hsmEnv" . | nindent 4 }}
    {{- else }}
    - { name: STRONGROOM_WRAPPING_KEY_FILE, value: {{ printf "%s/key" (include "strongroom.paths.wrappingKey" .) | quote }} }
    {{- end }}
    - { name: STRONGROOM_TOKENIZER_METRICS_PORT, value: {{ .Values.tokenizer.metricsPort | quote }} }
    - { name: STRONGROOM_LOG_LEVEL, value: {{ .Values.tokenizer.logLevel | quote }} }
    - { name: STRONGROOM_LOG_FORMAT, value: {{ .Values.tokenizer.logFormat | quote }} }
    {{- include "strongroom.tokenizer.settingsEnv" . | nindent 4 }}
    {{- include "strongroom.tracingEnv" . | nindent 4 }}
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
    {{- if eq .Values.custody.provider "pkcs11" }}
    {{- $hsm := .Values.custody.pkcs11 }}
    - { name: hsm-pin, mountPath: {{ include "strongroom.paths.hsmPin" . }}, readOnly: true }
    - { name: hsm-library, mountPath: {{ $hsm.library.mountPath }}, readOnly: true }
    {{- if $hsm.config.configMap }}
    - { name: hsm-config, mountPath: {{ $hsm.config.mountPath }}, readOnly: true }
    {{- end }}
    {{- else }}
    - { name: wrapping-key, mountPath: {{ include "strongroom.paths.wrappingKey" . }}, readOnly: true }
    {{- end }}
{{- end -}}

{{/* The HSM custody's settings (tokenizer container only): the PIN as a file from its Secret, never a value. */}}
{{- define "strongroom.tokenizer.hsmEnv" -}}
{{- $hsm := .Values.custody.pkcs11 -}}
- { name: STRONGROOM_TOKENIZER_CUSTODY, value: pkcs11 }
- { name: STRONGROOM_PKCS11_MODULE, value: {{ $hsm.module | quote }} }
{{- if $hsm.tokenLabel }}
- { name: STRONGROOM_PKCS11_TOKEN_LABEL, value: {{ $hsm.tokenLabel | quote }} }
{{- else }}
- { name: STRONGROOM_PKCS11_SLOT, value: {{ $hsm.slot | quote }} }
{{- end }}
- { name: STRONGROOM_PKCS11_KEY_LABEL, value: {{ $hsm.keyLabel | quote }} }
- { name: STRONGROOM_PKCS11_PIN_FILE, value: {{ printf "%s/pin" (include "strongroom.paths.hsmPin" .) | quote }} }
{{- with $hsm.env }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The HSM custody's volumes: the PIN Secret, the vendor's library, its configuration. */}}
{{- define "strongroom.tokenizer.hsmVolumes" -}}
{{- $hsm := .Values.custody.pkcs11 -}}
- name: hsm-pin
  secret:
    secretName: {{ $hsm.pinSecret.name }}
    defaultMode: 0400
    items: [{ key: {{ $hsm.pinSecret.key }}, path: pin }]
- name: hsm-library
  {{- toYaml $hsm.library.volume | nindent 2 }}
{{- if $hsm.config.configMap }}
- name: hsm-config
  configMap:
    name: {{ $hsm.config.configMap }}
{{- end }}
{{- end -}}
