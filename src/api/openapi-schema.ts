// The subset of OpenAPI v3 (apiextensions.k8s.io/v1 JSONSchemaProps) that the Workspace CRD uses,
// shared by the CRD generator (crd.ts) and the structural validator (schema-check.ts).

/** One `x-kubernetes-validations` entry: a CEL rule evaluated by the API server. */
export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** Where the API server reports the error, relative to the schema node (e.g. `.template`). */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface OpenApiSchema {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  required?: string[];
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  enum?: (string | number | boolean)[];
  default?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: CelRule[];
}
