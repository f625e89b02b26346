import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { z } from 'zod';

/**
 * JSON Schema (draft-07, what OpenAI's structured outputs and ajv's default speak), checked with
 * ajv. Compiled once per distinct schema text and kept (schemas are few: one per agent).
 */
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();
const maxCompiled = 1_000;

/** Compiles `schema` (cached); throws ajv's error when it is not a valid JSON Schema. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    if (compiled.size >= maxCompiled) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** ajv's errors as one line: `/path: message; …`. */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`).join('; ');
}

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
      compileSchema(schema);
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
