import { z } from 'zod';

/** DESIGN.md's error shape, used on every non-2xx response. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'snake_case, stable: validation_error, not_found, unauthorized, …' }),
      message: z.string(),
      request_id: z.string(),
      details: z
        .unknown()
        .optional()
        .meta({ description: 'For validation_error: [{path, message}] for every bad field.' }),
    }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBodySchema>;
