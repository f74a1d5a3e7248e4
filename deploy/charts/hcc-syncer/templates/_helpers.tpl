{{/*
Helpers of the hcc-syncer chart: names, labels, the image reference, the kubeconfig Secret, and
the `hcc syncer` arguments built from values. Every template includes these; none renders alone.
*/}}

{{/* Chart name, overridable with nameOverride. */}}
{{- define "hcc-syncer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name of the release's objects: <release>-hcc-syncer, or the release name when it already contains the chart name. */}}
{{- define "hcc-syncer.fullname" -}}
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

{{/* Labels that select the syncer pod (never change them on upgrade: Deployment selectors are immutable). */}}
{{- define "hcc-syncer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hcc-syncer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "hcc-syncer.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hcc-syncer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: syncer
app.kubernetes.io/part-of: hcc
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Name of the ServiceAccount the syncer runs as. */}}
{{- define "hcc-syncer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "hcc-syncer.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* repository:tag or repository@digest. */}}
{{- define "hcc-syncer.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Name of the Secret holding the control-center kubeconfig. */}}
{{- define "hcc-syncer.kubeconfigSecretName" -}}
{{- if .Values.controlCenter.existingSecret -}}
{{- .Values.controlCenter.existingSecret -}}
{{- else -}}
{{- printf "%s-control-center" (include "hcc-syncer.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Key of the kubeconfig in that Secret. */}}
{{- define "hcc-syncer.kubeconfigSecretKey" -}}
{{- if .Values.controlCenter.existingSecret -}}{{ .Values.controlCenter.existingSecretKey }}{{- else -}}kubeconfig{{- end -}}
{{- end -}}

{{/*
The control-center kubeconfig, base64-encoded, from exactly one of controlCenter.kubeconfig and
controlCenter.kubeconfigBase64 (fails the render otherwise). Only used when existingSecret is empty.
*/}}
{{- define "hcc-syncer.kubeconfigBase64" -}}
{{- $cc := .Values.controlCenter -}}
{{- $given := 0 -}}
{{- range (list $cc.kubeconfig $cc.kubeconfigBase64 $cc.existingSecret) }}{{ if . }}{{ $given = add1 $given }}{{ end }}{{ end -}}
{{- if ne $given 1 -}}
{{- fail "set exactly one of controlCenter.kubeconfig (e.g. --set-file controlCenter.kubeconfig=control-center.kubeconfig), controlCenter.kubeconfigBase64 and controlCenter.existingSecret" -}}
{{- end -}}
{{- if $cc.kubeconfig -}}
{{- $cc.kubeconfig | b64enc -}}
{{- else -}}
{{- $cc.kubeconfigBase64 | nospace -}}
{{- end -}}
{{- end -}}

{{/* Where the control-center kubeconfig is mounted in the container. */}}
{{- define "hcc-syncer.kubeconfigDir" -}}/etc/hcc/control-center{{- end -}}

{{/*
Arguments of `hcc syncer`, one per line as a YAML list. No --management-kubeconfig: in a pod the
syncer reaches its management cluster with the ServiceAccount's in-cluster credentials.
Labels are sorted by key so the rendering is stable.
*/}}
{{- define "hcc-syncer.args" -}}
{{- $mc := .Values.managementCluster -}}
- syncer
- {{ printf "--name=%s" (required "managementCluster.name is required (the ManagementCluster name, a DNS label)" $mc.name) | quote }}
- {{ printf "--kubeconfig=%s/kubeconfig" (include "hcc-syncer.kubeconfigDir" .) | quote }}
- {{ printf "--capacity=%d" (int64 $mc.capacity) | quote }}
{{- if $mc.platforms }}
- {{ printf "--platforms=%s" (join "," $mc.platforms) | quote }}
{{- end }}
{{- if $mc.labels }}
{{- $pairs := list }}
{{- range $k := keys $mc.labels | sortAlpha }}
{{- $pairs = append $pairs (printf "%s=%s" $k (toString (index $mc.labels $k))) }}
{{- end }}
- {{ printf "--labels=%s" (join "," $pairs) | quote }}
{{- end }}
- {{ printf "--heartbeat-interval=%v" .Values.syncer.heartbeatIntervalSeconds | quote }}
- {{ printf "--workers=%d" (int64 .Values.syncer.workers) | quote }}
- {{ printf "--metrics-host=%s" (toString .Values.syncer.metricsHost) | quote }}
- {{ printf "--metrics-port=%d" (int64 .Values.syncer.metricsPort) | quote }}
- {{ printf "--log-level=%s" (toString .Values.syncer.logLevel) | quote }}
{{- if .Values.syncer.pullCRDs }}
- --pull-crds
{{- end }}
{{- range .Values.syncer.extraArgs }}
{{- $flag := regexFind "^-[^=]*" (toString .) }}
{{- $owned := dict "--name" "managementCluster.name" "--kubeconfig" "controlCenter.*" "--management-kubeconfig" "the in-cluster ServiceAccount" "--metrics-host" "syncer.metricsHost" "--metrics-port" "syncer.metricsPort (the probes and the metrics Service use it)" "--push" "the chart (a pull syncer; the push syncer runs beside the control center)" }}
{{- if hasKey $owned (regexReplaceAll "^-+" $flag "--") }}
{{- fail (printf "syncer.extraArgs: %s is the chart's own (set from %s); set that value instead" $flag (get $owned (regexReplaceAll "^-+" $flag "--"))) }}
{{- end }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
Name of the metrics Service: <fullname>-metrics as a DNS-1035 label (Service names may hold no
dots and may not start with a digit, which release names may).
*/}}
{{- define "hcc-syncer.metricsServiceName" -}}
{{- $n := printf "%s-metrics" (include "hcc-syncer.fullname" .) | replace "." "-" | trunc 63 | trimSuffix "-" -}}
{{- if regexMatch "^[0-9]" $n -}}{{- $n = printf "s-%s" $n | trunc 63 | trimSuffix "-" -}}{{- end -}}
{{- $n -}}
{{- end -}}

{{/*
A Prometheus duration of one unit (30s, 1m, 500ms, 2h) in milliseconds, or -1 for any other form
(a compound one such as 1m30s, which is not compared).
*/}}
{{- define "hcc-syncer.durationMs" -}}
{{- if not (regexMatch "^[0-9]+(ms|s|m|h)$" .) -}}-1{{- else -}}
{{- $n := regexFind "^[0-9]+" . | int64 -}}
{{- $unit := regexReplaceAll "^[0-9]+" . "" -}}
{{- $per := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 -}}
{{- mul $n (get $per $unit) -}}
{{- end -}}
{{- end -}}
