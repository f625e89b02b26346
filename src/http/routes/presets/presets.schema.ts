import { z } from 'zod';
import { capabilities } from '../../../schemas/provider-catalog.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const presetIdParams = idParam('preset');

export const listPresetsQuery = z.object({
  ...pageQueryShape,
  q: z.string().max(200).optional().meta({ description: 'Case-insensitive substring of the name' }),
});

export const availableQuery = z.object({
  capability: z.enum(capabilities).optional(),
});
