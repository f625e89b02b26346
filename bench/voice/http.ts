/** The admin and SDK calls bench/voice makes over HTTP. */
import type { SessionGrant } from '../lib/voice-load-protocol.js';
import { standInPreset } from '../lib/stand-in-preset.js';
import { adminKey } from './options.js';

export async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * An agent with default settings (VAD, turn-taking) answered by the bench's webhook, on the
 * stand-in preset (instant STT and TTS: the built-in preset would be pocketsphinx where installed).
 */
export async function createAgent(url: string, webhookUrl: string): Promise<string> {
  const preset = (await admin(url, 'POST', '/admin/v1/presets', standInPreset)) as { id: string };
  const agent = (await admin(url, 'POST', '/admin/v1/agents', {
    name: 'Bench voice agent',
    mode: 'passthrough',
    webhook_url: webhookUrl,
    preset_id: preset.id,
  })) as { agent_token: string };
  return agent.agent_token;
}

export async function openSession(url: string, agentToken: string): Promise<SessionGrant & { session_id: string }> {
  const res = await fetch(`${url}/sdk/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_token: agentToken, transport: 'websocket' }),
  });
  const body = (await res.json()) as SessionGrant & { session_id: string };
  if (res.status !== 201) throw new Error(`POST /sdk/v1/session: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
