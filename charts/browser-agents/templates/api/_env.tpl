{{/* The API's environment (api/src/config.ts parses it). */}}
{{- define "browser-agents.apiEnv" -}}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: "8080"
- name: LOG_LEVEL
  value: {{ .Values.api.logLevel | quote }}
- name: TRUST_PROXY
  value: {{ .Values.api.trustProxy | quote }}
{{ include "browser-agents.databaseEnv" . }}
- name: DATABASE_POOL_SIZE
  value: {{ .Values.api.databasePoolSize | int64 | quote }}
- name: SESSION_RUNTIME
  value: kubernetes
- name: KUBE_NAMESPACE
  value: {{ include "browser-agents.agentNamespace" . | quote }}
- name: AGENT_IMAGE
  value: {{ include "browser-agents.image" (dict "root" . "image" .Values.agentPods.image) | quote }}
- name: AGENT_CPU_REQUEST
  value: {{ .Values.agentPods.resources.requests.cpu | quote }}
- name: AGENT_CPU_LIMIT
  value: {{ .Values.agentPods.resources.limits.cpu | quote }}
- name: AGENT_MEMORY_REQUEST
  value: {{ .Values.agentPods.resources.requests.memory | quote }}
- name: AGENT_MEMORY_LIMIT
  value: {{ .Values.agentPods.resources.limits.memory | quote }}
- name: AGENT_API_URL
  value: {{ include "browser-agents.agentApiUrl" . | quote }}
- name: AGENT_TOKEN_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "browser-agents.signingKeySecretName" . }}
      key: {{ .Values.agentTokenSigningKey.key }}
- name: MODEL_CATALOG
  valueFrom:
    configMapKeyRef:
      name: {{ include "browser-agents.modelCatalogName" . }}
      key: model-catalog.json
- name: DEFAULT_MODEL
  value: {{ .Values.models.default | quote }}
{{- range .Values.models.providerCredentials }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .secretKey }}
{{- end }}
- name: MAX_STEPS
  value: {{ .Values.sessions.maxSteps | int64 | quote }}
- name: SESSION_MAX_DURATION_SECONDS
  value: {{ .Values.sessions.maxDurationSeconds | int64 | quote }}
- name: SESSION_IDLE_TIMEOUT_SECONDS
  value: {{ .Values.sessions.idleTimeoutSeconds | int64 | quote }}
{{- with .Values.api.bootstrap }}
{{- if .existingSecret }}
- name: BOOTSTRAP_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .apiKeyKey }}
- name: BOOTSTRAP_TENANT
  value: {{ .tenant | quote }}
{{- end }}
{{- end }}
{{- with .Values.api.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* DATABASE_URL, all the migration init container (api/src/cli/migrate.ts) needs. */}}
{{- define "browser-agents.databaseEnv" -}}
{{- if .Values.postgresql.enabled -}}
- name: POSTGRES_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "browser-agents.postgresqlSecretName" . }}
      key: {{ .Values.postgresql.passwordKey }}
# Kubernetes expands $(POSTGRES_PASSWORD) from the variable above.
- name: DATABASE_URL
  value: {{ printf "postgresql://%s:$(POSTGRES_PASSWORD)@%s.%s.svc:5432/%s" .Values.postgresql.username (include "browser-agents.postgresqlName" .) .Release.Namespace .Values.postgresql.database | quote }}
{{- else -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.external.existingSecret }}
      key: {{ .Values.database.external.key }}
{{- end }}
{{- end -}}
