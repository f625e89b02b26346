import type { GbnfJsonSchema } from 'node-llama-cpp';

type Primitive = string | number | boolean | null;
type BasicType = 'string' | 'number' | 'integer' | 'boolean' | 'null';

const basicTypes: readonly string[] = ['string', 'number', 'integer', 'boolean', 'null'];
const stringFormats: readonly string[] = ['date-time', 'time', 'date'];

/** Any JSON value: what a schema Parley cannot express as a grammar falls back to. */
const anyJson: GbnfJsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrimitive = (v: unknown): v is Primitive =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;

/**
 * A tool's JSON Schema (draft-07, as agents store it) as node-llama-cpp's function-parameter schema,
 * from which it builds the grammar that constrains the model's arguments: types, `enum`, `const`,
 * `oneOf`/`anyOf`, nested objects and arrays, string and array lengths, date formats. What a grammar
 * cannot hold (`pattern`, `minimum`, `$ref`, …) is left out, so such a value is generated unconstrained
 * and the toolbox checks the arguments against the full schema afterwards. Two differences to know:
 * the grammar makes every listed property required, and an object lists only its `properties` unless
 * it has none (then any keys are allowed).
 */
export function toGrammarSchema(schema: unknown): GbnfJsonSchema {
  if (!isRecord(schema)) return anyJson;
  const description = typeof schema['description'] === 'string' ? { description: schema['description'] } : {};
  if ('const' in schema && isPrimitive(schema['const'])) return { const: schema['const'], ...description };
  const values = schema['enum'];
  if (Array.isArray(values) && values.length > 0 && values.every(isPrimitive)) return { enum: values, ...description };
  const alternatives = schema['oneOf'] ?? schema['anyOf'];
  if (Array.isArray(alternatives) && alternatives.length > 0)
    return { oneOf: alternatives.map((s) => toGrammarSchema(s)), ...description };

  const type = schema['type'] ?? (isRecord(schema['properties']) ? 'object' : undefined);
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    if (types.length > 0 && types.every((t) => basicTypes.includes(t)))
      return { type: types as BasicType[], ...description };
    return { oneOf: types.map((t) => toGrammarSchema({ ...schema, type: t })), ...description };
  }
  switch (type) {
    case 'string': {
      const format = schema['format'];
      if (typeof format === 'string' && stringFormats.includes(format))
        return { type: 'string', format: format as 'date-time' | 'time' | 'date', ...description };
      return {
        type: 'string',
        minLength: count(schema['minLength']),
        maxLength: count(schema['maxLength']),
        ...description,
      };
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type: type as Exclude<BasicType, 'string'>, ...description };
    case 'object': {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      const names = Object.keys(properties);
      const extra = schema['additionalProperties'];
      return {
        type: 'object',
        properties: Object.fromEntries(names.map((name) => [name, toGrammarSchema(properties[name])])),
        additionalProperties: isRecord(extra) ? toGrammarSchema(extra) : names.length === 0 && extra !== false,
        ...description,
      };
    }
    case 'array':
      return {
        type: 'array',
        items: isRecord(schema['items']) ? toGrammarSchema(schema['items']) : undefined,
        minItems: count(schema['minItems']),
        maxItems: count(schema['maxItems']),
        ...description,
      };
    default:
      return anyJson;
  }
}
