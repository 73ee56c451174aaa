package main

// kaito-render inferenceset-hash: InferenceSets (a JSON array) → KAITO v0.12's revision hash of each
// (ComputeInferenceSetHash: sha256 of json.Encoder over the Go spec), for
// test/e2e/kaito-v012-inferenceset-hash.test.ts.

import (
	"encoding/json"
	"io"

	kaitov1beta1 "github.com/kaito-project/kaito/api/v1beta1"
	"github.com/kaito-project/kaito/pkg/utils/inferenceset"
)

func runInferenceSetHashes(r io.Reader) ([]string, error) {
	var sets []kaitov1beta1.InferenceSet
	if err := json.NewDecoder(r).Decode(&sets); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(sets))
	for i := range sets {
		out = append(out, inferenceset.ComputeInferenceSetHash(&sets[i]))
	}
	return out, nil
}
