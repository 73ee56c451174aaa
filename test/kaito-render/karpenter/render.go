// kaito-ts parity harness, not part of KAITO: simcluster/build-kaito.sh copies this file into
// KAITO's pkg/nodeprovision/karpenter so that cmd/kaito-render can call the package's unexported
// NodePool and NodeClass generators as KAITO's own provisioner calls them.
package karpenter

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	karpenterv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	kaitov1beta1 "github.com/kaito-project/kaito/api/v1beta1"
)

// RenderNodePool resolves the NodeClass and builds the pool as ProvisionNodes does before it creates
// one: generateNodePool, then replicas set to the delta the caller computed.
func RenderNodePool(ws *kaitov1beta1.Workspace, cfg NodeClassConfig, replicas int64) (*karpenterv1.NodePool, error) {
	nodeClassName, err := resolveNodeClassName(ws, cfg)
	if err != nil {
		return nil, err
	}
	np := generateNodePool(ws, cfg, nodeClassName)
	np.Spec.Replicas = &replicas
	return np, nil
}

// RenderNodeClass is the object Start creates for one --karpenter-node-classes entry.
func RenderNodeClass(cfg NodeClassConfig, nc NodeClassSpec) *unstructured.Unstructured {
	return (&KarpenterProvisioner{nodeClassConfig: cfg}).newNodeClassObject(nc)
}

// RenderNodeSelector is what the inference pods' required node affinity gets appended.
func RenderNodeSelector(ws *kaitov1beta1.Workspace) []corev1.NodeSelectorRequirement {
	return (&KarpenterProvisioner{}).BuildNodeSelector(context.Background(), ws)
}
