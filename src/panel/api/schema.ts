import { api } from './client.js';

/** What the panel reads of a JSON Schema property in /openapi.json (generated from the zod schemas). */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  $ref?: string;
  items?: JsonSchema;
}

export interface PropertyInfo {
  name: string;
  /** `list`: an array of strings (words, phrases); `object`: other arrays and objects, edited as JSON. */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'list';
  nullable: boolean;
  enum: string[] | undefined;
  description: string | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  maxLength: number | undefined;
  required: boolean;
}

interface OpenApiDocument {
  components: { schemas: Record<string, { properties?: Record<string, JsonSchema>; required?: string[] }> };
}

let document: Promise<OpenApiDocument> | undefined;

/** /openapi.json, read once per page load (public, no key). */
function openApi(): Promise<OpenApiDocument> {
  document ??= api<OpenApiDocument>('/openapi.json', { anonymous: true }).catch((err: unknown) => {
    document = undefined;
    throw err;
  });
  return document;
}

function describe(name: string, schema: JsonSchema, required: boolean): PropertyInfo {
  const variants = schema.anyOf ?? [schema];
  const nullable =
    variants.some((v) => v.type === 'null' || (Array.isArray(v.type) && v.type.includes('null'))) ||
    (Array.isArray(schema.type) && schema.type.includes('null'));
  const main = variants.find((v) => v.type !== 'null') ?? schema;
  const type = (Array.isArray(main.type) ? main.type.find((t) => t !== 'null') : main.type) ?? 'string';
  return {
    name,
    // Arrays of strings are lists; other arrays (an agent's `tools`) are edited as JSON, like objects.
    type: (type === 'array'
      ? main.items?.type === 'string'
        ? 'list'
        : 'object'
      : ['string', 'number', 'integer', 'boolean', 'object'].includes(type)
        ? type
        : 'string') as PropertyInfo['type'],
    nullable,
    enum: main.enum?.filter((v): v is string => typeof v === 'string'),
    description: schema.description ?? main.description,
    minimum: main.minimum ?? main.exclusiveMinimum,
    maximum: main.maximum,
    maxLength: main.maxLength,
    required,
  };
}

/** The properties of a named component schema (e.g. `AgentCreate`), in the schema's order. */
export async function schemaProperties(component: string): Promise<PropertyInfo[]> {
  const doc = await openApi();
  const schema = doc.components.schemas[component];
  if (schema?.properties === undefined) throw new Error(`/openapi.json has no schema ${component}`);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => describe(name, s, required.has(name)));
}

/** Help text: the schema's description and its limits, in words. */
export function helpText(p: PropertyInfo): string {
  const parts: string[] = [];
  // In a form an absent value is an empty field: say so instead of the API's `null`.
  if (p.description !== undefined) parts.push(p.description.replace(/`/g, '').replace(/\bnull\b/g, 'empty'));
  if (p.type === 'number' || p.type === 'integer') {
    const unit = p.name.endsWith('_ms') ? ' ms' : '';
    if (p.minimum !== undefined && p.maximum !== undefined) parts.push(`From ${p.minimum} to ${p.maximum}${unit}.`);
  }
  if (p.type === 'string' && p.maxLength !== undefined && p.enum === undefined)
    parts.push(`At most ${p.maxLength} characters.`);
  if (p.nullable && p.type !== 'boolean' && !parts.some((t) => t.includes('empty')))
    parts.push('Leave empty for none.');
  return parts.join(' ');
}
