{{/* Chart name, truncated to 63 characters (a DNS label). */}}
{{- define "syncgc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: <release>-syncgc, or <release> when it already contains the chart name. */}}
{{- define "syncgc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "syncgc.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "syncgc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "syncgc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "syncgc.labels" -}}
helm.sh/chart: {{ include "syncgc.chart" . }}
{{ include "syncgc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: syncgc
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "syncgc.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "syncgc.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The operator image: [registry/]repository@digest, or [registry/]repository:tag (tag default
     appVersion); registry is image.registry, else global.imageRegistry. The project publishes no
     image, so there is no default repository: rendering fails, saying how to get one. */}}
{{- define "syncgc.image" -}}
{{- $image := .Values.image }}
{{- if not $image.repository }}
{{- fail (printf "image.repository is required: the project publishes no operator image, so the chart names none (it would end in ImagePullBackOff). Build it with `make dist-image IMAGE=<registry>/syncgc-operator`, push it, then set image.repository=<registry>/syncgc-operator and image.tag (default: the chart's appVersion, %s) or image.digest=sha256:<digest>, e.g. `helm install ... --set image.repository=registry.example.com/syncgc-operator --set image.tag=%s`" .Chart.AppVersion .Chart.AppVersion) }}
{{- end }}
{{- $registry := default (dig "imageRegistry" "" (.Values.global | default dict)) $image.registry }}
{{- $repository := $image.repository }}
{{- if $registry }}
{{- $repository = printf "%s/%s" $registry $image.repository }}
{{- end }}
{{- if $image.digest }}
{{- printf "%s@%s" $repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{/* The Pods' imagePullSecrets: global.imagePullSecrets (names or {name: ...}), then imagePullSecrets,
     each name once. */}}
{{- define "syncgc.imagePullSecrets" -}}
{{- $names := list }}
{{- range concat (dig "imagePullSecrets" list (.Values.global | default dict)) .Values.imagePullSecrets }}
{{- if kindIs "string" . }}
{{- $names = append $names . }}
{{- else }}
{{- $names = append $names .name }}
{{- end }}
{{- end }}
{{- range uniq $names }}
- name: {{ . }}
{{- end }}
{{- end }}

{{/* "true" when leader election is on: forced by the value, or more than one replica. */}}
{{- define "syncgc.leaderElection" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicaCount) 1) }}true{{ end }}
{{- end }}

{{/* The --builtin-kinds value: Kind for the core group, group/Kind otherwise, comma-separated. */}}
{{- define "syncgc.builtinKinds" -}}
{{- if .Values.trackedKinds.everyServedKind }}*{{- else }}
{{- $kinds := list }}
{{- range .Values.trackedKinds.builtin }}
{{- if .group }}
{{- $kinds = append $kinds (printf "%s/%s" .group .kind) }}
{{- else }}
{{- $kinds = append $kinds .kind }}
{{- end }}
{{- end }}
{{- join "," $kinds }}
{{- end }}
{{- end }}

{{/* Settings shared by the operator and the release Job, as the operator's environment variables. */}}
{{- define "syncgc.commonEnv" -}}
- name: SYNCGC_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SYNCGC_LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
{{- with .Values.jvmOptions }}
- name: JDK_JAVA_OPTIONS
  value: {{ join " " . | quote }}
{{- end }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- end }}

{{/* Pod placement and pull settings shared by the operator and the release Job. */}}
{{- define "syncgc.podPlacement" -}}
{{- with include "syncgc.imagePullSecrets" . | trim }}
imagePullSecrets:
  {{- . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A probe of the operator container: (list <probe values> <path>), nothing when not enabled. */}}
{{- define "syncgc.probe" -}}
{{- $probe := index . 0 }}
{{- if $probe.enabled }}
httpGet:
  path: {{ index . 1 }}
  port: http
{{- toYaml (omit $probe "enabled") | nindent 0 }}
{{- end }}
{{- end }}

{{/* kubeApi.qps without a float exponent: 1000000, not 1e+06. */}}
{{- define "syncgc.qps" -}}
{{- $q := .Values.kubeApi.qps }}
{{- if eq (float64 $q) (float64 (int64 $q)) }}{{ int64 $q }}{{ else }}{{ $q }}{{ end }}
{{- end }}

{{/* PromQL label matchers selecting the operator's series: metrics.prometheusRule.selector, or the
     job and namespace labels a ServiceMonitor scrape of the metrics Service gives. */}}
{{- define "syncgc.metricsSelector" -}}
{{- $default := printf "job=\"%s-metrics\",namespace=\"%s\"" (include "syncgc.fullname" .) .Release.Namespace }}
{{- default $default (trim .Values.metrics.prometheusRule.selector) }}
{{- end }}

{{/* The labels of one alert: its own labels over its severity over prometheusRule.alertLabels.
     Called with (dict "alert" <alert values> "rule" <prometheusRule values>). */}}
{{- define "syncgc.alertLabels" -}}
{{- $labels := merge (dict) (default (dict) .alert.labels) (dict "severity" .alert.severity) (default (dict) .rule.alertLabels) }}
{{- toYaml $labels }}
{{- end }}

{{/* A Prometheus duration in seconds, for comparing with a _seconds series: 30m -> 1800,
     1h30m -> 5400, 1500ms -> 1.5 (y = 365d, w = 7d, as Prometheus counts them). The schema checks
     the duration (units from largest to smallest), so each number-and-unit is simply added up. */}}
{{- define "syncgc.durationSeconds" -}}
{{- $unitMs := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "d" 86400000 "w" 604800000 "y" 31536000000 }}
{{- $ms := 0 }}
{{- range regexFindAll "[0-9]+(ms|[smhdwy])" . -1 }}
{{- $n := regexFind "^[0-9]+" . }}
{{- $ms = add $ms (mul (atoi $n) (get $unitMs (trimPrefix $n .))) }}
{{- end }}
{{- if mod $ms 1000 }}
{{- printf "%d.%03d" (div $ms 1000) (mod $ms 1000) | trimSuffix "0" | trimSuffix "0" }}
{{- else }}
{{- div $ms 1000 }}
{{- end }}
{{- end }}

{{/* The namespace of the helm test's objects: the release namespace when syncgc tracks it, else the
     first tracked namespace. */}}
{{- define "syncgc.testNamespace" -}}
{{- if or (not .Values.namespaces) (has .Release.Namespace .Values.namespaces) }}
{{- .Release.Namespace }}
{{- else }}
{{- first .Values.namespaces }}
{{- end }}
{{- end }}

{{/* "true" when the helm test can run: enabled, and ConfigMaps (what it creates) are tracked. */}}
{{- define "syncgc.testEnabled" -}}
{{- if .Values.test.enabled }}
{{- range .Values.trackedKinds.builtin }}
{{- if and (eq .group "") (eq .kind "ConfigMap") }}true{{ end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Labels of a hook's objects, (list . "test") or (list . "release"): not the operator's selector
labels, so that neither the metrics Service nor the release Job's wait for the operator's Pods to
go counts them (the release Job would wait for itself until its deadline).
*/}}
{{- define "syncgc.hookLabels" -}}
{{- $root := index . 0 }}
{{- $component := index . 1 }}
helm.sh/chart: {{ include "syncgc.chart" $root }}
app.kubernetes.io/name: {{ include "syncgc.name" $root }}-{{ $component }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/part-of: syncgc
app.kubernetes.io/component: {{ $component }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Base URL of the runbooks: metrics.prometheusRule.runbookUrl, or the project's docs/runbooks at the
     release's tag (v<appVersion>), so that each alert links to the runbook of the version installed. */}}
{{- define "syncgc.runbookUrl" -}}
{{- $url := trimSuffix "/" .Values.metrics.prometheusRule.runbookUrl }}
{{- default (printf "https://github.com/syncgc/syncgc/blob/v%s/docs/runbooks" .Chart.AppVersion) $url }}
{{- end }}
