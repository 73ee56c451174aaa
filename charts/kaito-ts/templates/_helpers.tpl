{{- define "kaito-ts.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kaito-ts.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kaito-ts.labels" -}}
{{ include "kaito-ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "kaito-ts.serviceAccountName" -}}
{{- printf "%s-sa" (include "kaito-ts.fullname" .) -}}
{{- end -}}

{{- define "kaito-ts.featureGates" -}}
{{- $gates := list -}}
{{- range $k, $v := .Values.featureGates -}}
{{- $gates = append $gates (printf "%s=%v" $k $v) -}}
{{- end -}}
{{- join "," $gates -}}
{{- end -}}

{{/* --node-provisioner: the value, or byo when the default meets disableNodeAutoProvisioning=true. */}}
{{- define "kaito-ts.nodeProvisioner" -}}
{{- $p := .Values.nodeProvisioner | default "azure-gpu-provisioner" -}}
{{- if and (eq $p "azure-gpu-provisioner") .Values.featureGates.disableNodeAutoProvisioning -}}
{{- $p = "byo" -}}
{{- end -}}
{{- if not (has $p (list "azure-gpu-provisioner" "karpenter" "byo")) -}}
{{- fail (printf "nodeProvisioner must be azure-gpu-provisioner, karpenter or byo, got %q" $p) -}}
{{- end -}}
{{- $p -}}
{{- end -}}

{{/* The karpenterProviders entry in use, as YAML; fails when it is missing or incomplete. */}}
{{- define "kaito-ts.karpenterProvider" -}}
{{- $provider := index .Values.karpenterProviders .Values.karpenterProvider -}}
{{- if not $provider -}}
{{- fail (printf "karpenterProviders.%s is not defined in values.yaml" .Values.karpenterProvider) -}}
{{- end -}}
{{- if or (not $provider.group) (not $provider.resourceName) -}}
{{- fail (printf "karpenterProviders.%s must define both group and resourceName" .Values.karpenterProvider) -}}
{{- end -}}
{{- toYaml $provider -}}
{{- end -}}
