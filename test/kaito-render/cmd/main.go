// kaito-render (kaito-ts parity harness, not part of KAITO): reads JSON on stdin and prints what
// KAITO v0.12's own code makes of it, so that kaito-ts's builders can be compared field by field.
//
//	kaito-render           node-class flags, workspaces and NodeClaim lists → NodeClasses, NodePools,
//	                       node selectors, provisioning states (test/e2e/kaito-v012-nodepool-parity.test.ts)
//	kaito-render workload  cases (workspace + cluster objects) → target node count, Services, StatefulSet
//	                       (workload.go; test/e2e/kaito-v012-workload-parity.test.ts)
//	kaito-render inferenceset-hash  InferenceSets → their revision hashes (inferenceset.go;
//	                       test/e2e/kaito-v012-inferenceset-hash.test.ts)
//
// simcluster/build-kaito.sh builds it inside KAITO's source tree as cmd/kaito-render.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	karpenterv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	kaitov1beta1 "github.com/kaito-project/kaito/api/v1beta1"
	"github.com/kaito-project/kaito/pkg/nodeprovision/karpenter"
	"github.com/kaito-project/kaito/pkg/nodeprovision/manager"
	"github.com/kaito-project/kaito/pkg/utils/consts"
	"github.com/kaito-project/kaito/pkg/utils/nodeclaim"
)

type flags struct {
	Group        string `json:"group"`
	Kind         string `json:"kind"`
	Version      string `json:"version"`
	ResourceName string `json:"resourceName"`
	NodeClasses  string `json:"nodeClasses"`
}

type input struct {
	Flags      flags `json:"flags"`
	Workspaces []struct {
		Workspace kaitov1beta1.Workspace `json:"workspace"`
		Replicas  int64                  `json:"replicas"`
	} `json:"workspaces"`
	NodeClaimLists [][]*karpenterv1.NodeClaim `json:"nodeClaimLists"`
}

type state struct {
	Found   bool   `json:"found"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type output struct {
	ConfigError     string           `json:"configError,omitempty"`
	NodeClassNames  []string         `json:"nodeClassNames"`
	DefaultName     string           `json:"defaultName"`
	NodeClasses     []map[string]any `json:"nodeClasses"`
	Workspaces      []map[string]any `json:"workspaces"`
	ProvisionStates []state          `json:"provisioningStates"`
}

// asMap round-trips through JSON: the bytes KAITO's client would send, as a generic object.
func asMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "workload" {
		write(map[string]any{"cases": runWorkloads(os.Stdin)})
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "inferenceset-hash" {
		hashes, err := runInferenceSetHashes(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kaito-render: reading stdin:", err)
			os.Exit(2)
		}
		write(map[string]any{"hashes": hashes})
		return
	}
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "kaito-render: reading stdin:", err)
		os.Exit(2)
	}
	out := output{NodeClassNames: []string{}, NodeClasses: []map[string]any{}, Workspaces: []map[string]any{}, ProvisionStates: []state{}}
	cfg := karpenter.NodeClassConfig{Group: in.Flags.Group, Kind: in.Flags.Kind, Version: in.Flags.Version, ResourceName: in.Flags.ResourceName}
	entries, names, err := manager.ParseNodeClasses(in.Flags.NodeClasses)
	if err != nil {
		out.ConfigError = err.Error()
	} else {
		cfg.NodeClasses, cfg.NodeClassNames = entries, names
		// As Start derives it (ParseNodeClasses has already refused zero or several defaults).
		for _, e := range entries {
			if e.Default {
				cfg.DefaultName = e.Name
			}
		}
		consts.SetAllowedNodeClassNames(names)
		out.NodeClassNames, out.DefaultName = names, cfg.DefaultName
		for _, e := range entries {
			out.NodeClasses = append(out.NodeClasses, karpenter.RenderNodeClass(cfg, e).Object)
		}
		for i := range in.Workspaces {
			ws := &in.Workspaces[i].Workspace
			r := map[string]any{
				"name":         karpenter.NodePoolName(ws.Namespace, ws.Name),
				"nodeSelector": karpenter.RenderNodeSelector(ws),
			}
			np, err := karpenter.RenderNodePool(ws, cfg, in.Workspaces[i].Replicas)
			if err != nil {
				r["error"] = err.Error()
			} else {
				// The client sets the type from its scheme; status is not written on create.
				np.APIVersion, np.Kind = "karpenter.sh/v1", "NodePool"
				m := asMap(np)
				delete(m, "status")
				r["nodePool"] = m
			}
			out.Workspaces = append(out.Workspaces, r)
		}
	}
	for _, list := range in.NodeClaimLists {
		reason, message, found := nodeclaim.FirstNodeClaimProvisioningState(list)
		out.ProvisionStates = append(out.ProvisionStates, state{Found: found, Reason: reason, Message: message})
	}
	write(out)
}

func write(out any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "kaito-render:", err)
		os.Exit(1)
	}
}
