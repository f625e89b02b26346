import { z } from 'zod';
import { idPrefixes, isId, type IdKind } from '../../ids/id-format.js';

/** Path parameter `:id` of a record kind: a well-formed id or 400 (never a lookup of junk). */
export function idParam<N extends string = 'id'>(kind: IdKind, name: N = 'id' as N) {
  const id = z.string().refine((v) => isId(kind, v), { message: `must be a ${idPrefixes[kind]}_… id` });
  return z.object({ [name]: id } as Record<N, typeof id>);
}

const isoToMs = z.iso
  .datetime({ offset: true })
  .transform((v) => Date.parse(v))
  .meta({ description: 'ISO 8601 date-time' });

/** `limit`, `cursor`, `from`, `to` (DESIGN.md lists). */
export const pageQueryShape = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
  from: isoToMs.optional().meta({ description: 'Only records created at or after this time' }),
  to: isoToMs.optional().meta({ description: 'Only records created at or before this time' }),
};
