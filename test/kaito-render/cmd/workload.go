// `kaito-render workload`: each case (a workspace and the cluster objects KAITO would read for it)
// goes through the steps of KAITO v0.12's Workspace reconcile that shape the workload, on a fake
// client: the target node count (UpdateWorkspaceTargetNodeCount), the two Services, and the
// StatefulSet (GeneratePresetInference, or CreateTemplateInference for a template). KAITO v0.12
// makes no ConfigMap copy for inference (its #2162), so there is none to print.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kaitov1beta1 "github.com/kaito-project/kaito/api/v1beta1"
	"github.com/kaito-project/kaito/pkg/featuregates"
	"github.com/kaito-project/kaito/pkg/nodeprovision/manager"
	"github.com/kaito-project/kaito/pkg/utils/consts"
	"github.com/kaito-project/kaito/pkg/workspace/controllers"
	"github.com/kaito-project/kaito/pkg/workspace/inference"
	"github.com/kaito-project/kaito/pkg/workspace/manifests"
	"github.com/kaito-project/kaito/presets/workspace/models"
)

type workloadCase struct {
	Name           string `json:"name"`
	CloudProvider  string `json:"cloudProvider"`
	PresetRegistry string `json:"presetRegistry"`
	// Bring-your-own nodes: the feature gate, and the byo provisioner instead of gpu-provisioner.
	DisableNodeAutoProvisioning bool                     `json:"disableNodeAutoProvisioning"`
	Nodes                       []corev1.Node            `json:"nodes"`
	StorageClasses              []storagev1.StorageClass `json:"storageClasses"`
	ConfigMaps                  []corev1.ConfigMap       `json:"configMaps"`
	Secrets                     []corev1.Secret          `json:"secrets"`
	Workspace                   kaitov1beta1.Workspace   `json:"workspace"`
}

type workloadResult struct {
	Name            string         `json:"name"`
	Error           string         `json:"error,omitempty"`
	TargetNodeCount int32          `json:"targetNodeCount"`
	Service         map[string]any `json:"service,omitempty"`
	HeadlessService map[string]any `json:"headlessService,omitempty"`
	StatefulSet     map[string]any `json:"statefulSet,omitempty"`
}

func runWorkloads(stdin io.Reader) []workloadResult {
	// KAITO logs every step through klog; only errors matter here, and they are in the results.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	var in struct {
		Cases []workloadCase `json:"cases"`
	}
	if err := json.NewDecoder(stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "kaito-render workload: reading stdin:", err)
		os.Exit(2)
	}
	out := make([]workloadResult, 0, len(in.Cases))
	for _, c := range in.Cases {
		r, err := renderWorkload(c)
		r.Name = c.Name
		if err != nil {
			r.Error = err.Error()
		}
		out = append(out, r)
	}
	return out
}

// The process-wide settings KAITO reads: its environment and feature gates.
func configure(c workloadCase) {
	os.Setenv("CLOUD_PROVIDER", c.CloudProvider)
	os.Setenv("PRESET_REGISTRY_NAME", c.PresetRegistry)
	featuregates.FeatureGates[consts.FeatureFlagDisableNodeAutoProvisioning] = c.DisableNodeAutoProvisioning
}

func renderWorkload(c workloadCase) (workloadResult, error) {
	configure(c)
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return workloadResult{}, err
	}
	if err := kaitov1beta1.AddToScheme(scheme); err != nil {
		return workloadResult{}, err
	}
	ws := c.Workspace.DeepCopy()
	objects := []client.Object{ws}
	for i := range c.Nodes {
		objects = append(objects, &c.Nodes[i])
	}
	for i := range c.StorageClasses {
		objects = append(objects, &c.StorageClasses[i])
	}
	for i := range c.ConfigMaps {
		objects = append(objects, &c.ConfigMaps[i])
	}
	for i := range c.Secrets {
		objects = append(objects, &c.Secrets[i])
	}
	kube := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).WithStatusSubresource(&kaitov1beta1.Workspace{}).Build()

	provisionerType := consts.NodeProvisionerAzureGPU
	if c.DisableNodeAutoProvisioning {
		provisionerType = consts.NodeProvisionerBYO
	}
	recorder := record.NewFakeRecorder(100)
	provisioner := manager.NewNodeProvisioner(manager.ProvisionerConfig{KClient: kube, Recorder: recorder, ProvisionerType: provisionerType})
	reconciler := controllers.NewWorkspaceReconciler(kube, scheme, logr.Discard(), recorder, provisioner)

	// A new workspace: syncControllerRevision gives it revision 1.
	const revision = "1"
	if ws.Annotations == nil {
		ws.Annotations = map[string]string{}
	}
	ws.Annotations[kaitov1beta1.WorkspaceRevisionAnnotation] = revision

	var r workloadResult
	if err := reconciler.UpdateWorkspaceTargetNodeCount(ctx, ws); err != nil {
		return r, err
	}
	r.TargetNodeCount = ws.Status.TargetNodeCount
	if ws.Inference == nil {
		return r, fmt.Errorf("not an inference workspace")
	}

	// ensureService's rule for the Service type.
	serviceType := corev1.ServiceTypeClusterIP
	if ws.Annotations[kaitov1beta1.AnnotationEnableLB] == "True" {
		serviceType = corev1.ServiceTypeLoadBalancer
	}
	r.Service = typed(manifests.GenerateServiceManifest(ws, serviceType), "v1", "Service")
	r.HeadlessService = typed(manifests.GenerateHeadlessServiceManifest(ws), "v1", "Service")

	var workload client.Object
	var err error
	if ws.Inference.Template != nil {
		workload, err = inference.CreateTemplateInference(ctx, ws, kube, provisioner)
	} else if ws.Inference.Preset != nil {
		preset := ws.Inference.Preset
		model, merr := models.GetModelByName(ctx, string(preset.Name), preset.PresetOptions.ModelAccessSecret, ws.Namespace, kube)
		if merr != nil {
			return r, merr
		}
		workload, err = inference.GeneratePresetInference(ctx, ws, revision, model, kube, provisioner)
	}
	if err != nil {
		return r, err
	}
	ss, ok := workload.(*appsv1.StatefulSet)
	if !ok {
		return r, fmt.Errorf("workload is a %T, not a StatefulSet", workload)
	}
	ss.ResourceVersion = "" // set by the fake client's create
	r.StatefulSet = typed(ss, "apps/v1", "StatefulSet")
	return r, nil
}

// typed is the object as KAITO's client sends it: apiVersion and kind from the scheme, no status.
func typed(obj any, apiVersion, kind string) map[string]any {
	m := asMap(obj)
	m["apiVersion"], m["kind"] = apiVersion, kind
	delete(m, "status")
	return m
}
