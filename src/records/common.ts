import { z } from 'zod';

/** Operator-defined key/value pairs kept with a record; small and flat on purpose. */
export const metadataSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= 50, { message: 'at most 50 keys' })
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
