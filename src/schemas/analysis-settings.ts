import { z } from 'zod';
import { validatorFor } from './json-schema.js';

/** An operator's JSON Schema for the structured fields: an object schema that ajv compiles. */
const analysisSchemaField = z
  .record(z.string(), z.unknown())
  .superRefine((schema, ctx) => {
    if (schema['type'] !== 'object') {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON Schema of an object ("type": "object")' });
      return;
    }
    if (JSON.stringify(schema).length > 20_000) {
      ctx.addIssue({ code: 'custom', message: 'must be at most 20000 characters as JSON' });
      return;
    }
    try {
      validatorFor(schema);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  })
  .meta({
    description:
      'JSON Schema (an object schema) of the structured fields the LLM extracts from the transcript into `analysis.data`; checked when saved.',
  });

export const analysisSettingsSchema = z
  .strictObject({
    enabled: z.boolean().meta({ description: 'Analyse each session of this agent once it ends.' }),
    prompt: z.string().max(10_000).nullable().default(null).meta({
      description: 'Extra instructions for the analysis (what to look for, how to summarise); null for none.',
    }),
    schema: analysisSchemaField.nullable().default(null),
  })
  // Inlined (no component id) so the panel's settings form, which reads AgentPatch, sees an object.
  .meta({
    description:
      "Post-call analysis: when a session ends, the agent's LLM writes a summary and, with `schema`, structured fields; stored on the conversation and sent as `analysis_ready`. Null: off.",
  });

export type AnalysisSettings = z.infer<typeof analysisSettingsSchema>;
