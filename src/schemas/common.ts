import { z } from 'zod';

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `when` of a refinement on an object (or record) that reads only `fields` of it: the refinement runs
 * whenever the value is an object and those fields parsed, even though other fields failed. By
 * default zod skips an object's refinements after any field's type error, so a 400 hid their problems
 * until the other fields were fixed; `validation_error` lists every bad field of a request at once.
 * The refinement must then read the other fields as unknown.
 */
export function whenFieldsParsed(...fields: string[]): (payload: z.core.ParsePayload) => boolean {
  return (payload) =>
    isObject(payload.value) &&
    !payload.issues.some(({ path = [], code }) =>
      path.length === 0 ? code === 'invalid_type' : fields.includes(String(path[0])),
    );
}

/** Operator-defined key/value pairs kept with a record; small and flat on purpose. */
export const metadataSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
  // Counted even when some keys or values are bad (those are reported beside it).
  .refine((m) => Object.keys(m).length <= 50, { message: 'at most 50 keys', when: whenFieldsParsed() })
  .meta({ description: 'Free-form flat key/value pairs (at most 50 keys).' });

export const timestampSchema = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 timestamp (UTC)' });

export const httpUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

export const pageSchema = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Pass as `cursor` to read the next page; null at the end.' }),
    })
    .meta({ id });
