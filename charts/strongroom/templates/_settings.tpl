{{/*
Settings passed to the api and the tokenizer as environment variables, each only when set ("" keeps the
program's default). The api's go to the api container only, the tokenizer's to the tokenizer only (custody: the
tokenizer never sees a database, object store or mail setting; the api never a keyring setting).
*/}}
{{- define "strongroom.api.settingsEnv" -}}
{{- with .Values.api.settings.tokenizerDeadlineMs }}
- { name: STRONGROOM_TOKENIZER_DEADLINE_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.bodyLimit }}
- { name: STRONGROOM_BODY_LIMIT, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.publicBodyLimit }}
- { name: STRONGROOM_PUBLIC_BODY_LIMIT, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.bodyMemory }}
- { name: STRONGROOM_BODY_MEMORY, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.requestsPerAddress }}
- { name: STRONGROOM_REQUESTS_PER_ADDRESS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.largeBodies }}
- { name: STRONGROOM_LARGE_BODIES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.largeBodiesTotal }}
- { name: STRONGROOM_LARGE_BODIES_TOTAL, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.uploadMinRate }}
- { name: STRONGROOM_UPLOAD_MIN_RATE, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.uploadRateWindowSeconds }}
- { name: STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.headersTimeoutMs }}
- { name: STRONGROOM_HEADERS_TIMEOUT_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.requestTimeoutMs }}
- { name: STRONGROOM_REQUEST_TIMEOUT_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.keepAliveTimeoutMs }}
- { name: STRONGROOM_KEEPALIVE_TIMEOUT_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.trustProxy }}
- { name: STRONGROOM_TRUST_PROXY, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.proxyHops }}
- { name: STRONGROOM_PROXY_HOPS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.trustedProxies }}
- { name: STRONGROOM_TRUSTED_PROXIES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.tenantDomain }}
- { name: STRONGROOM_TENANT_DOMAIN, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.loginRatePerAddress }}
- { name: STRONGROOM_LOGIN_RATE_PER_ADDRESS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.loginRatePerTenant }}
- { name: STRONGROOM_LOGIN_RATE_PER_TENANT, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.authFailuresPerAddress }}
- { name: STRONGROOM_AUTH_FAILURES_PER_ADDRESS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.authFailuresPerPrefix }}
- { name: STRONGROOM_AUTH_FAILURES_PER_PREFIX, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.authFailuresPerTenant }}
- { name: STRONGROOM_AUTH_FAILURES_PER_TENANT, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.authBlockSeconds }}
- { name: STRONGROOM_AUTH_BLOCK_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.sharedRatePerAddress }}
- { name: STRONGROOM_SHARED_RATE_PER_ADDRESS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.callsPerCredential }}
- { name: STRONGROOM_CALLS_PER_CREDENTIAL, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.callsPerLoginXtoken }}
- { name: STRONGROOM_CALLS_PER_LOGIN_XTOKEN, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.challengeMaxNumber }}
- { name: STRONGROOM_CHALLENGE_MAX_NUMBER, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.loginMaxFailures }}
- { name: STRONGROOM_LOGIN_MAX_FAILURES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.loginWindowSeconds }}
- { name: STRONGROOM_LOGIN_WINDOW_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.listUsers }}
- { name: STRONGROOM_LIST_USERS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.versioning }}
- { name: STRONGROOM_VERSIONING, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.maxVersions }}
- { name: STRONGROOM_MAX_VERSIONS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.limitCap }}
- { name: STRONGROOM_LIMIT_CAP, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.unlockSeconds }}
- { name: STRONGROOM_UNLOCK_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.bulkMaxRecords }}
- { name: STRONGROOM_BULK_MAX_RECORDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.sweepSeconds }}
- { name: STRONGROOM_SWEEP_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.fileOrphanSeconds }}
- { name: STRONGROOM_FILE_ORPHAN_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.auditVerifySeconds }}
- { name: STRONGROOM_AUDIT_VERIFY_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.rewrapSeconds }}
- { name: STRONGROOM_REWRAP_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.rewrapBatch }}
- { name: STRONGROOM_REWRAP_BATCH, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.rewrapPauseMs }}
- { name: STRONGROOM_REWRAP_PAUSE_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.legacyBatch }}
- { name: STRONGROOM_LEGACY_BATCH, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.xtokenMaxSeconds }}
- { name: STRONGROOM_XTOKEN_MAX_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.sessionMaxSeconds }}
- { name: STRONGROOM_SESSION_MAX_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.profileMaxBytes }}
- { name: STRONGROOM_PROFILE_MAX_BYTES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.shareMaxSeconds }}
- { name: STRONGROOM_SHARE_MAX_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.settings.smtpFrom }}
- { name: STRONGROOM_SMTP_FROM, value: {{ . | quote }} }
{{- end }}
{{- with .Values.api.notifications.existingSecret }}
{{- if $.Values.api.notifications.smtpUrlKey }}
- name: STRONGROOM_SMTP_URL
  valueFrom:
    secretKeyRef: { name: {{ . }}, key: {{ $.Values.api.notifications.smtpUrlKey }} }
{{- end }}
{{- if $.Values.api.notifications.smsWebhookUrlKey }}
- name: STRONGROOM_SMS_WEBHOOK_URL
  valueFrom:
    secretKeyRef: { name: {{ . }}, key: {{ $.Values.api.notifications.smsWebhookUrlKey }} }
{{- end }}
{{- end }}
{{- with .Values.api.oidc }}
{{- if .issuer }}
- { name: STRONGROOM_OIDC_ISSUER, value: {{ .issuer | quote }} }
- { name: STRONGROOM_OIDC_CLIENT_ID, value: {{ .clientId | quote }} }
- { name: STRONGROOM_OIDC_ROLE_MAP, value: {{ .roleMap | quote }} }
{{- with .groupsClaim }}
- { name: STRONGROOM_OIDC_GROUPS_CLAIM, value: {{ . | quote }} }
{{- end }}
{{- with .redirectUrl }}
- { name: STRONGROOM_OIDC_REDIRECT_URL, value: {{ . | quote }} }
{{- end }}
{{- with .tokenSeconds }}
- { name: STRONGROOM_OIDC_TOKEN_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- if .clientSecret.name }}
- { name: STRONGROOM_OIDC_CLIENT_SECRET_FILE, value: /etc/strongroom/oidc/{{ .clientSecret.key }} }
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.privacyEvents.dispatchSeconds }}
- { name: STRONGROOM_EVENTS_DISPATCH_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.retrySeconds }}
- { name: STRONGROOM_EVENTS_RETRY_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.retryFirstMs }}
- { name: STRONGROOM_EVENTS_RETRY_FIRST_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.retentionSeconds }}
- { name: STRONGROOM_EVENTS_RETENTION_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.timeoutMs }}
- { name: STRONGROOM_EVENTS_TIMEOUT_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.maxResponseBytes }}
- { name: STRONGROOM_EVENTS_MAX_RESPONSE_BYTES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.concurrency }}
- { name: STRONGROOM_EVENTS_CONCURRENCY, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.allowAddresses }}
- { name: STRONGROOM_EVENTS_ALLOW_ADDRESSES, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.maxSubscriptions }}
- { name: STRONGROOM_EVENTS_MAX_SUBSCRIPTIONS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.measureSeconds }}
- { name: STRONGROOM_EVENTS_MEASURE_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.natsUrl }}
- { name: STRONGROOM_NATS_URL, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.natsSubjectPrefix }}
- { name: STRONGROOM_NATS_SUBJECT_PREFIX, value: {{ . | quote }} }
{{- end }}
{{- with .Values.privacyEvents.erasureConfirmSeconds }}
- { name: STRONGROOM_ERASURE_CONFIRM_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- if .Values.auditSinks.existingSecret }}
- name: STRONGROOM_AUDIT_SINKS
  valueFrom:
    secretKeyRef: { name: {{ .Values.auditSinks.existingSecret }}, key: {{ .Values.auditSinks.secretKey }} }
{{- else if .Values.auditSinks.sinks }}
- { name: STRONGROOM_AUDIT_SINKS, value: {{ .Values.auditSinks.sinks | toJson | quote }} }
{{- end }}
{{- with .Values.auditSinks.seconds }}
- { name: STRONGROOM_AUDIT_SINKS_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditSinks.lagWarn }}
- { name: STRONGROOM_AUDIT_SINK_LAG_WARN, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditSinks.tsaUrl }}
- { name: STRONGROOM_AUDIT_TSA_URL, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditSinks.tsaTimeoutMs }}
- { name: STRONGROOM_AUDIT_TSA_TIMEOUT_MS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.seconds }}
- { name: STRONGROOM_AUDIT_CHECKPOINT_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.events }}
- { name: STRONGROOM_AUDIT_CHECKPOINT_EVENTS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.bucket }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.prefix }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.region }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_REGION, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.endpoint }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.forcePathStyle }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.objectLock }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.lockMode }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE, value: {{ . | quote }} }
{{- end }}
{{- with .Values.auditCheckpoints.s3.retentionDays }}
- { name: STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS, value: {{ . | quote }} }
{{- end }}
{{- if .Values.auditCheckpoints.persistence.existingClaim }}
- { name: STRONGROOM_AUDIT_CHECKPOINT_DIR, value: {{ include "strongroom.paths.checkpoints" . | quote }} }
{{- end }}
{{- if and .Values.auditCheckpoints.s3.bucket .Values.auditCheckpoints.s3.credentials.existingSecret }}
- name: STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef: { name: {{ .Values.auditCheckpoints.s3.credentials.existingSecret }}, key: {{ .Values.auditCheckpoints.s3.credentials.accessKeyIdKey }} }
- name: STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef: { name: {{ .Values.auditCheckpoints.s3.credentials.existingSecret }}, key: {{ .Values.auditCheckpoints.s3.credentials.secretAccessKeyKey }} }
{{- end }}
{{- end -}}

{{- define "strongroom.tokenizer.settingsEnv" -}}
{{- with .Values.tokenizer.settings.rotateAfterSeals }}
- { name: STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.tokenizer.settings.keyringCheckSeconds }}
- { name: STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.tokenizer.settings.recoveryRecipients }}
- { name: STRONGROOM_RECOVERY_RECIPIENTS, value: {{ . | quote }} }
{{- end }}
{{- with .Values.tokenizer.settings.keyCacheSeconds }}
- { name: STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS, value: {{ . | quote }} }
{{- end }}
{{- end -}}

{{/* Traces: the OpenTelemetry variables, for the api and the tokenizer alike, when an endpoint is set. */}}
{{- define "strongroom.tracingEnv" -}}
{{- with .Values.tracing.endpoint }}
- { name: OTEL_EXPORTER_OTLP_ENDPOINT, value: {{ . | quote }} }
- { name: OTEL_TRACES_SAMPLER, value: {{ $.Values.tracing.sampler | quote }} }
- { name: OTEL_TRACES_SAMPLER_ARG, value: {{ $.Values.tracing.samplerArg | quote }} }
{{- end }}
{{- end }}
