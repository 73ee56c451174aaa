#!/usr/bin/env bash
# Times one NodeClaim through the simulated gpu-provisioner: create → Ready=True, → nvidia.com/gpu on its
# node, and delete --wait. Needs KUBECONFIG and kubectl (eval "$(kaito-ts simcluster env)"). Usage: [sku]
set -euo pipefail
sku=${1:-Standard_NC24ads_A100_v4}
n=ws$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' | cut -c1-9)
t0=$(date +%s.%N)
kubectl create -f - >/dev/null <<Y
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: $n, labels: {karpenter.sh/nodepool: kaito, kaito.sh/workspace: m-$n, kaito.sh/workspacenamespace: bench}}
spec:
  nodeClassRef: {group: kaito.sh, kind: KaitoNodeClass, name: default}
  taints: [{key: sku, value: gpu, effect: NoSchedule}]
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [$sku]}]
  resources: {requests: {storage: 120Gi}}
Y
until [ "$(kubectl get nodeclaim $n -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; do sleep 0.05; done
t1=$(date +%s.%N)
until [ -n "$(kubectl get nodes -l agentpool=$n -o jsonpath='{.items[0].status.capacity.nvidia\.com/gpu}')" ]; do sleep 0.05; done
t2=$(date +%s.%N)
kubectl delete nodeclaim $n --wait=true >/dev/null
t3=$(date +%s.%N)
printf '%s ready %.2fs gpu %.2fs delete %.2fs\n' "$sku" "$(echo "$t1-$t0" | bc)" "$(echo "$t2-$t0" | bc)" "$(echo "$t3-$t2" | bc)"
