import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BoundedCache } from '../primitives/bounded-cache.js';

/**
 * Operators' JSON Schemas (draft-07, ajv): tools' `parameters` and post-call analysis' `schema`.
 * Compiled when an agent is saved (so a bad schema is a 400 then, not a failure later) and, per
 * process, once per distinct schema when used. `strict: false` accepts the keywords OpenAI's own
 * examples use (`title`, `examples`, …) that ajv's strict mode would refuse.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new BoundedCache<ValidateFunction>(1_000);

/** The validator for a schema; throws (with ajv's message) when the schema itself is invalid. */
export function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why a schema cannot be used, or null when it compiles. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  try {
    validatorFor(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** ajv's errors as one readable line, e.g. `/party_size must be integer; must have required property 'date'`. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath === '' ? '' : `${e.instancePath} `}${e.message ?? 'is invalid'}`)
    .join('; ');
}
