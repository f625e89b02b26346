import type { Agent } from '../../src/schemas/agent.js';
import type { AdminClient } from './admin-client.js';

/**
 * Creates an agent through the Admin API (`POST /admin/v1/agents`) with `settings` over a default
 * name, and returns the record (with its `agent_token`). Anything but 201 throws with the body.
 */
export async function createAgent(on: AdminClient, settings: Record<string, unknown> = {}): Promise<Agent> {
  const res = await on.request('POST', '/admin/v1/agents', { body: { name: 'Test agent', ...settings } });
  if (res.status !== 201) throw new Error(`creating an agent answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Agent;
}
