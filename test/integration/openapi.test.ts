import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let p: TestParley;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read back over HTTP
let doc: any;

beforeAll(async () => {
  redis = await TestRedis.start();
  p = await startParley(redis);
  const res = await p.request('GET', '/openapi.json', { apiKey: null });
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
});

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}

/** Every documented operation as `METHOD path`. */
function documentedOperations(): Map<string, Operation> {
  const ops = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item))
      if (httpMethods.includes(method)) ops.set(`${method.toUpperCase()} ${path}`, op);
  }
  return ops;
}

/** Every method+path the running app's router serves, in OpenAPI's `{param}` syntax (HEAD is implied by GET). */
function servedRoutes(): string[] {
  const routes = new Set<string>();
  for (const layer of p.parley.router.stack) {
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      expect(typeof layer.path, `a route with a RegExp path cannot be documented: ${String(layer.path)}`).toBe(
        'string',
      );
      routes.add(`${method} ${String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    }
  }
  return [...routes].sort();
}

it('is an OpenAPI 3.1.0 document served without a key', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.title).toBe('Parley');
  expect(typeof doc.info.version).toBe('string');
  expect(doc.components.securitySchemes.adminApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
});

it('documents every route the app serves', () => {
  const served = servedRoutes();
  expect(served.length).toBeGreaterThan(10);
  const documented = documentedOperations();
  const missing = served.filter((route) => !documented.has(route));
  expect(missing, `served but not in /openapi.json: ${missing.join(', ')}`).toEqual([]);
  const phantom = [...documented.keys()].filter((route) => !served.includes(route));
  expect(phantom, `in /openapi.json but not served: ${phantom.join(', ')}`).toEqual([]);
});

it('documents the agent and preset endpoints of the contract', () => {
  const documented = documentedOperations();
  for (const route of [
    'GET /admin/v1/agents',
    'POST /admin/v1/agents',
    'GET /admin/v1/agents/{id}',
    'PATCH /admin/v1/agents/{id}',
    'DELETE /admin/v1/agents/{id}',
    'POST /admin/v1/agents/{id}/regenerate-token',
    'GET /admin/v1/agents/{id}/stats',
    'GET /admin/v1/presets',
    'GET /admin/v1/presets/available',
    'POST /admin/v1/presets',
    'GET /admin/v1/presets/{id}',
    'PATCH /admin/v1/presets/{id}',
    'DELETE /admin/v1/presets/{id}',
    'GET /openapi.json',
  ]) {
    expect(documented.has(route), route).toBe(true);
  }
});

it('gives every operation a unique operationId and a 2xx response', () => {
  const ids: string[] = [];
  for (const [route, op] of documentedOperations()) {
    expect(typeof op.operationId, route).toBe('string');
    ids.push(op.operationId!);
    const success = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
    expect(success.length, `${route} has no 2xx response`).toBeGreaterThan(0);
  }
  expect(new Set(ids).size).toBe(ids.length);
});

it('marks every admin operation as needing the key and able to answer 401', () => {
  for (const [route, op] of documentedOperations()) {
    if (!route.includes(' /admin/v1/')) continue;
    expect(op.security, route).toEqual([{ adminApiKey: [] }]);
    expect(Object.keys(op.responses ?? {}), route).toContain('401');
  }
});

it('documents 503 on every Admin, SDK and telephony operation (a Redis outage answers store_unavailable)', () => {
  for (const [route, op] of documentedOperations()) {
    if (!/ \/(admin|sdk|telephony)\//.test(route)) continue;
    expect(Object.keys(op.responses ?? {}), route).toContain('503');
  }
});

it('documents every request body a route validates, with the error shape for 4xx', () => {
  const documented = documentedOperations();
  for (const area of p.parley.areas) {
    for (const route of area.routes) {
      const key = `${route.method.toUpperCase()} ${area.prefix}${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
      const op = documented.get(key);
      expect(op, key).toBeDefined();
      expect(op!.operationId).toBe(route.operationId);
      if (route.body !== undefined) {
        expect(op!.requestBody?.content['application/json']?.schema, key).toBeDefined();
        expect(Object.keys(op!.responses ?? {}), key).toEqual(expect.arrayContaining(['400', '415']));
      }
      for (const [status, response] of Object.entries(op!.responses ?? {}) as [
        string,
        { content?: Record<string, { schema: { $ref?: string } }> },
      ][]) {
        if (Number(status) >= 400)
          expect(response.content?.['application/json']?.schema.$ref, `${key} ${status}`).toBe(
            '#/components/schemas/Error',
          );
      }
    }
  }
});

describe('request bodies reference the zod-derived schemas', () => {
  const schema = (name: string) => doc.components.schemas[name];
  const bodyRef = (method: string, path: string) =>
    doc.paths[path][method].requestBody.content['application/json'].schema.$ref;

  it('AgentCreate requires name only and rejects unknown fields', () => {
    expect(bodyRef('post', '/admin/v1/agents')).toBe('#/components/schemas/AgentCreate');
    const create = schema('AgentCreate');
    expect(create.required).toEqual(['name']);
    expect(create.additionalProperties).toBe(false);
    expect(Object.keys(create.properties)).toEqual(
      expect.arrayContaining(['name', 'mode', 'preset_id', 'webhook_url', 'webhook_api_key', 'fallback_line']),
    );
    expect(create.properties.fallback_line).toMatchObject({ type: 'string', maxLength: 500 });
    expect(create.properties.mode.enum).toEqual(['enhanced', 'passthrough']);
    expect(create.properties.vad_threshold).toMatchObject({ minimum: 0.05, maximum: 0.95 });
  });

  it('AgentPatch requires nothing', () => {
    expect(bodyRef('patch', '/admin/v1/agents/{id}')).toBe('#/components/schemas/AgentPatch');
    expect(schema('AgentPatch').required ?? []).toEqual([]);
    expect(Object.keys(schema('AgentPatch').properties).sort()).toEqual(
      Object.keys(schema('AgentCreate').properties).sort(),
    );
  });

  it('the Agent response has has_webhook_api_key and never webhook_api_key', () => {
    const agent = doc.paths['/admin/v1/agents/{id}'].get.responses['200'].content['application/json'].schema.$ref;
    expect(agent).toBe('#/components/schemas/Agent');
    expect(Object.keys(schema('Agent').properties)).toContain('has_webhook_api_key');
    expect(Object.keys(schema('Agent').properties)).not.toContain('webhook_api_key');
    expect(Object.keys(schema('Agent').properties)).toEqual(expect.arrayContaining(['readiness', 'warnings']));
  });

  it('the Conversation says whether it has a recording: {duration_ms, bytes, channels} or null', () => {
    const recording = schema('Conversation').properties.recording as { anyOf?: { $ref?: string; type?: string }[] };
    expect(schema('Conversation').required).toContain('recording');
    expect(recording.anyOf).toEqual(
      expect.arrayContaining([{ $ref: '#/components/schemas/ConversationRecording' }, { type: 'null' }]),
    );
    expect(schema('ConversationRecording').required.sort()).toEqual(['bytes', 'channels', 'duration_ms']);
  });

  it("the voice session answer carries the agent's warnings", () => {
    const session = doc.paths['/sdk/v1/session'].post.responses['201'].content['application/json'].schema.$ref;
    expect(session).toBe('#/components/schemas/VoiceSessionResponse');
    expect(schema('VoiceSessionResponse').properties.warnings).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(schema('VoiceSessionResponse').required).toContain('warnings');
  });

  it('PresetCreate requires name and PresetPatch nothing', () => {
    expect(bodyRef('post', '/admin/v1/presets')).toBe('#/components/schemas/PresetCreate');
    expect(bodyRef('patch', '/admin/v1/presets/{id}')).toBe('#/components/schemas/PresetPatch');
    expect(schema('PresetCreate').required).toEqual(['name']);
    expect(schema('PresetPatch').required ?? []).toEqual([]);
  });

  it('the document upload is described in both encodings', () => {
    const content = doc.paths['/admin/v1/agents/{id}/documents'].post.requestBody.content;
    expect(content['multipart/form-data'].schema.$ref).toBe('#/components/schemas/DocumentUploadMultipart');
    expect(content['application/json'].schema.$ref).toBe('#/components/schemas/DocumentUploadJson');
    expect(schema('DocumentUploadMultipart').required).toEqual(['file']);
  });

  it('path ids are documented as path parameters', () => {
    const params = doc.paths['/admin/v1/agents/{id}'].get.parameters as {
      in: string;
      name: string;
      required: boolean;
    }[];
    expect(params).toContainEqual(expect.objectContaining({ in: 'path', name: 'id', required: true }));
    const query = doc.paths['/admin/v1/agents'].get.parameters as { in: string; name: string }[];
    expect(query.map((q) => q.name)).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'from', 'to', 'mode', 'preset_id', 'q']),
    );
  });
});
