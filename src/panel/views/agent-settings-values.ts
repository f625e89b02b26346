import type { PropertyInfo } from '../api/schema.js';
import type { Agent } from '../api/types.js';

/** The settings form's values and the PATCH body built from them. */

const labels: Record<string, string> = {
  preset_id: 'Preset',
  webhook_url: 'Webhook URL',
  webhook_api_key: 'Webhook API key',
  events_url: 'Events URL',
  rag_enabled: 'RAG enabled',
  vad_threshold: 'VAD threshold',
  metadata: 'Metadata (JSON)',
  tools: 'Tools (JSON)',
  analysis: 'Analysis (JSON)',
  transfer_to: 'Transfer to',
};

export function label(name: string): string {
  const known = labels[name];
  if (known !== undefined) return known;
  const text = name.replace(/_ms$/, ' (ms)').replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export type Values = Record<string, string | boolean>;

/** A list of words or phrases as the form edits it: one a line. */
export function listText(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join('\n') : '';
}

/** The lines of a list field, trimmed, without blank lines. */
export function listItems(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function initialValues(agent: Agent, props: PropertyInfo[]): Values {
  const record = agent as unknown as Record<string, unknown>;
  const values: Values = {};
  for (const p of props) {
    const v = record[p.name];
    if (p.name === 'webhook_api_key') values[p.name] = '';
    else if (p.type === 'boolean') values[p.name] = v === true;
    else if (p.type === 'list') values[p.name] = listText(v);
    // A nullable object's null (analysis off) is an empty field; other objects show as JSON.
    else if (p.type === 'object')
      values[p.name] = v === null || v === undefined ? (p.nullable ? '' : '{}') : JSON.stringify(v, null, 2);
    else values[p.name] = v === null || v === undefined ? '' : String(v);
  }
  return values;
}

/** The PATCH body: only the settings that changed, in the API's types. */
export function changes(props: PropertyInfo[], before: Values, after: Values): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const p of props) {
    const v = after[p.name];
    if (v === before[p.name]) continue;
    if (p.name === 'webhook_api_key' && v === '') continue;
    if (typeof v === 'boolean') patch[p.name] = v;
    else if (p.type === 'list') patch[p.name] = listItems(v ?? '');
    else if (p.type === 'object') {
      if ((v ?? '').trim() === '' && p.nullable) patch[p.name] = null;
      else {
        try {
          patch[p.name] = JSON.parse(v ?? '');
        } catch {
          throw new Error(`${label(p.name)} is not valid JSON${p.nullable ? ' (leave it empty for none)' : ''}`);
        }
      }
    } else if (v === '' && p.nullable) patch[p.name] = null;
    else if (p.type === 'number' || p.type === 'integer') patch[p.name] = v === '' ? Number.NaN : Number(v);
    else patch[p.name] = v;
  }
  return patch;
}
