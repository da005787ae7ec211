// Small builders for structural OpenAPI v3 schemas, so the schemas read like the API they define.

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  enum?: (string | number | boolean)[];
  pattern?: string;
  format?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  'x-kubernetes-validations'?: {
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
  }[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export function str(description: string, extra: Partial<Schema> = {}): Schema {
  return { type: 'string', description, ...extra };
}

export function int(description: string, extra: Partial<Schema> = {}): Schema {
  return { type: 'integer', description, ...extra };
}

export function bool(description: string, extra: Partial<Schema> = {}): Schema {
  return { type: 'boolean', description, ...extra };
}

export function obj(
  description: string,
  properties: Record<string, Schema>,
  extra: Partial<Schema> = {},
): Schema {
  return { type: 'object', description, properties, ...extra };
}

export function mapOf(description: string, values: Schema, extra: Partial<Schema> = {}): Schema {
  return { type: 'object', description, additionalProperties: values, ...extra };
}

export function arrayOf(description: string, items: Schema, extra: Partial<Schema> = {}): Schema {
  return { type: 'array', description, items, ...extra };
}

/** A CEL rule that every key of a map matches a regular expression. */
export function keysMatch(
  pattern: string,
  message: string,
): NonNullable<Schema['x-kubernetes-validations']>[number] {
  // In a CEL string a backslash starts an escape: the pattern's own backslashes are doubled.
  return { rule: `self.all(k, k.matches('${pattern.replace(/\\/g, '\\\\')}'))`, message };
}
