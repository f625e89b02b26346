import { z } from 'zod';
import { pageSchema } from '../../../schemas/common.js';
import {
  presetCreateSchema,
  presetPatchSchema,
  presetSchema,
  builtInPresetSchema,
  providerAvailabilitySchema,
} from '../../../schemas/preset.js';
import type { ProviderDemand } from '../../../agents/provider-demand.js';
import type { ProviderRegistry } from '../../../providers/registry.js';
import type { RagService } from '../../../rag/rag-service.js';
import type { Store } from '../../../store/store.js';
import { builtInSettings } from '../../../providers/built-in/built-in-preset.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { ownModelFileProblems } from './own-model-files.js';
import { availableQuery, listPresetsQuery, presetIdParams } from './presets.schema.js';

const tag = 'Presets';

/** `rag` hears of `embeddings` changes: the agents using the preset re-embed their documents. */
export function presetRoutes(
  store: Store,
  registry: ProviderRegistry,
  rag: Pick<RagService, 'embeddingsChanged'>,
  demand: Pick<ProviderDemand, 'forget'>,
): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/presets',
      operationId: 'listPresets',
      summary: 'List presets, newest first',
      tag,
      query: listPresetsQuery,
      responses: { 200: { description: 'A page of presets', schema: pageSchema(presetSchema, 'PresetPage') } },
      handler: async (_ctx, { query }) => {
        const { limit, cursor, from, to, q } = query;
        return { body: await store.presets.list({ limit, cursor, from, to }, { q }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/presets/available',
      operationId: 'listAvailableProviders',
      summary: 'Every provider Parley implements, with its models and voices and whether it is configured here',
      tag,
      query: availableQuery,
      responses: {
        200: {
          description: 'Providers',
          schema: z.object({ data: z.array(providerAvailabilitySchema) }).meta({ id: 'ProviderAvailabilityList' }),
        },
      },
      handler: async (_ctx, { query }) => ({ body: { data: await registry.availability(query.capability) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/presets/built-in',
      operationId: 'getBuiltInPreset',
      summary:
        'The built-in preset (agents with preset_id null): per capability the first provider usable on this server now',
      tag,
      responses: { 200: { description: 'The built-in preset', schema: builtInPresetSchema } },
      handler: async () => ({ body: await registry.builtIn() }),
    }),
    defineRoute({
      method: 'post',
      path: '/presets',
      operationId: 'createPreset',
      summary: 'Create a preset',
      tag,
      body: presetCreateSchema,
      bodyProblems: (sent) => ownModelFileProblems(registry, sent),
      responses: { 201: { description: 'The new preset', schema: presetSchema } },
      handler: async (ctx, { body }) => {
        const preset = await store.presets.create(body, builtInSettings(await registry.builtIn()));
        ctx.set('Location', `/admin/v1/presets/${preset.id}`);
        return { status: 201, body: preset };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/presets/:id',
      operationId: 'getPreset',
      summary: 'Get a preset',
      tag,
      params: presetIdParams,
      errors: [404],
      responses: { 200: { description: 'The preset', schema: presetSchema } },
      handler: async (_ctx, { params }) => ({ body: await store.presets.get(params.id) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/presets/:id',
      operationId: 'updatePreset',
      summary: 'Change a preset; each section given (stt, llm, tts, embeddings) replaces that section',
      tag,
      params: presetIdParams,
      body: presetPatchSchema,
      bodyProblems: (sent) => ownModelFileProblems(registry, sent),
      errors: [404, 409],
      responses: { 200: { description: 'The updated preset', schema: presetSchema } },
      handler: async (_ctx, { params, body }) => {
        const preset = await store.presets.update(params.id, body);
        demand.forget();
        if (body.embeddings !== undefined) rag.embeddingsChanged({ presetId: preset.id });
        return { body: preset };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/presets/:id',
      operationId: 'deletePreset',
      summary: 'Delete a preset; 409 while agents use it (details.agent_ids lists them)',
      tag,
      params: presetIdParams,
      errors: [404, 409],
      responses: { 204: { description: 'Deleted' } },
      handler: async (_ctx, { params }) => {
        await store.presets.delete(params.id);
        demand.forget();
        return { status: 204 };
      },
    }),
  ];
}
