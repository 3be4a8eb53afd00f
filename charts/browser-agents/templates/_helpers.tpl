{{/* Names */}}
{{- define "browser-agents.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* "<release>-<chart>", or the release name when it already holds the chart name; leaves room for suffixes. */}}
{{- define "browser-agents.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "browser-agents.apiName" -}}{{ include "browser-agents.fullname" . }}-api{{- end -}}
{{- define "browser-agents.operatorName" -}}{{ include "browser-agents.fullname" . }}-operator{{- end -}}
{{- define "browser-agents.postgresqlName" -}}{{ include "browser-agents.fullname" . }}-postgresql{{- end -}}
{{- define "browser-agents.modelCatalogName" -}}{{ include "browser-agents.fullname" . }}-model-catalog{{- end -}}

{{/* Namespace of AgentSessions and agent pods. */}}
{{- define "browser-agents.agentNamespace" -}}
{{- default .Release.Namespace .Values.agentPods.namespace -}}
{{- end -}}

{{/* Labels */}}
{{- define "browser-agents.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/part-of: {{ include "browser-agents.name" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component; call with (dict "root" $ "component" "api"). */}}
{{- define "browser-agents.selectorLabels" -}}
app.kubernetes.io/name: {{ include "browser-agents.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "browser-agents.labels" -}}
{{ include "browser-agents.commonLabels" .root }}
{{ include "browser-agents.selectorLabels" . }}
{{- end -}}

{{/* Images: "<repository>:<tag or appVersion>". */}}
{{- define "browser-agents.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/* Secrets */}}
{{- define "browser-agents.signingKeySecretName" -}}
{{- default (printf "%s-agent-token-signing-key" (include "browser-agents.fullname" .)) .Values.agentTokenSigningKey.existingSecret -}}
{{- end -}}

{{- define "browser-agents.postgresqlSecretName" -}}
{{- default (include "browser-agents.postgresqlName" .) .Values.postgresql.existingSecret -}}
{{- end -}}

{{/* In-cluster URL of the API, as agent pods reach it. */}}
{{- define "browser-agents.agentApiUrl" -}}
{{- if .Values.api.agentApiUrl -}}
{{- .Values.api.agentApiUrl -}}
{{- else -}}
{{- printf "http://%s.%s.svc:%d" (include "browser-agents.apiName" .) .Release.Namespace (int .Values.api.service.port) -}}
{{- end -}}
{{- end -}}

{{/* The restricted container security context every chart container runs with. */}}
{{- define "browser-agents.containerSecurityContext" -}}
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Spread replicas over nodes when the cluster allows it. */}}
{{- define "browser-agents.topologySpread" -}}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "browser-agents.selectorLabels" . | nindent 8 }}
{{- end -}}

{{/*
Checks that need more than one value and so cannot live in values.schema.json.
Rendered once from templates/validate.yaml; fails the install with a message naming the values.
*/}}
{{- define "browser-agents.validate" -}}
{{- $catalogNames := list -}}
{{- range .Values.models.catalog -}}
{{- if has .name $catalogNames -}}
{{- fail (printf "models.catalog: the name %q appears twice" .name) -}}
{{- end -}}
{{- $catalogNames = append $catalogNames .name -}}
{{- end -}}
{{- if not (has .Values.models.default $catalogNames) -}}
{{- fail (printf "models.default %q is not a name in models.catalog (%s)" .Values.models.default (join ", " $catalogNames)) -}}
{{- end -}}
{{- $credentialEnvs := list -}}
{{- range .Values.models.providerCredentials -}}
{{- $credentialEnvs = append $credentialEnvs .env -}}
{{- end -}}
{{- range .Values.models.catalog -}}
{{- if and .apiKeyEnv (not (has .apiKeyEnv $credentialEnvs)) -}}
{{- fail (printf "models.catalog %q reads its key from %s, but models.providerCredentials has no entry with env: %s" .name .apiKeyEnv .apiKeyEnv) -}}
{{- end -}}
{{- $efforts := default (list "none") .efforts -}}
{{- if not (has (default "none" .recommendedEffort) $efforts) -}}
{{- fail (printf "models.catalog %q: recommendedEffort %q is not one of its efforts" .name (default "none" .recommendedEffort)) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.postgresql.enabled .Values.database.external.existingSecret -}}
{{- fail "database.external.existingSecret is set while postgresql.enabled=true: set postgresql.enabled=false to use the external database" -}}
{{- end -}}
{{- if and (not .Values.postgresql.enabled) (not .Values.database.external.existingSecret) -}}
{{- fail "postgresql.enabled=false needs database.external.existingSecret (a Secret holding the postgres:// URL)" -}}
{{- end -}}
{{- end -}}
