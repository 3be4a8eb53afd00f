{{/* The operator's environment (operator/src/config.ts parses it). */}}
{{- define "browser-agents.operatorEnv" -}}
{{- $agent := .Values.agentPods -}}
- name: LOG_LEVEL
  value: {{ .Values.operator.logLevel | quote }}
- name: WATCH_NAMESPACE
  value: {{ include "browser-agents.agentNamespace" . | quote }}
- name: AGENT_TOKEN_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "browser-agents.signingKeySecretName" . }}
      key: {{ .Values.agentTokenSigningKey.key }}
- name: LEADER_ELECTION
  value: "true"
- name: LEADER_ELECTION_NAMESPACE
  value: {{ .Release.Namespace | quote }}
- name: LEADER_ELECTION_LEASE_NAME
  value: {{ include "browser-agents.operatorName" . | quote }}
- name: LEASE_DURATION_SECONDS
  value: {{ .Values.operator.leaderElection.leaseDurationSeconds | int64 | quote }}
- name: LEASE_RENEW_DEADLINE_SECONDS
  value: {{ .Values.operator.leaderElection.renewDeadlineSeconds | int64 | quote }}
- name: LEASE_RETRY_PERIOD_SECONDS
  value: {{ .Values.operator.leaderElection.retryPeriodSeconds | int64 | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: METRICS_HOST
  value: "0.0.0.0"
- name: METRICS_PORT
  value: {{ .Values.operator.metrics.port | int64 | quote }}
- name: RECONCILE_CONCURRENCY
  value: {{ .Values.operator.reconcileConcurrency | int64 | quote }}
- name: RESYNC_INTERVAL_SECONDS
  value: {{ .Values.operator.resyncIntervalSeconds | int64 | quote }}
- name: AGENT_COMMAND
  value: {{ $agent.command | toJson | quote }}
- name: AGENT_IMAGE_PULL_POLICY
  value: {{ $agent.image.pullPolicy | quote }}
{{- with $agent.runtimeClassName }}
- name: AGENT_RUNTIME_CLASS_NAME
  value: {{ . | quote }}
{{- end }}
- name: AGENT_RUN_AS_USER
  value: {{ $agent.runAsUser | int64 | quote }}
- name: AGENT_RUN_AS_GROUP
  value: {{ $agent.runAsGroup | int64 | quote }}
- name: AGENT_HOME_DIR
  value: {{ $agent.homeDir | quote }}
- name: AGENT_CHROMIUM_PATH
  value: /usr/bin/chromium
- name: AGENT_CHROMIUM_FLAGS
  value: {{ $agent.chromiumFlags | quote }}
- name: AGENT_LOG_LEVEL
  value: {{ $agent.logLevel | quote }}
- name: AGENT_DEVTOOLS_PORT
  value: "9222"
- name: AGENT_CPU_REQUEST
  value: {{ $agent.resources.requests.cpu | quote }}
- name: AGENT_CPU_LIMIT
  value: {{ $agent.resources.limits.cpu | quote }}
- name: AGENT_MEMORY_REQUEST
  value: {{ $agent.resources.requests.memory | quote }}
- name: AGENT_MEMORY_LIMIT
  value: {{ $agent.resources.limits.memory | quote }}
- name: AGENT_SHM_SIZE
  value: {{ $agent.shmSize | quote }}
- name: AGENT_TMP_SIZE
  value: {{ $agent.tmpSize | quote }}
- name: AGENT_HOME_SIZE
  value: {{ $agent.homeSize | quote }}
- name: AGENT_TERMINATION_GRACE_PERIOD_SECONDS
  value: {{ $agent.terminationGracePeriodSeconds | int64 | quote }}
{{- with .Values.operator.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}
