import type { PropertyInfo } from '../api/schema.js';

/**
 * The agent page's sections, in page order: the in-page navigation lists them and jumps to each.
 * Each holds its settings in fieldsets (`[legend, setting names]`) and, for some, more than
 * settings (token and statistics, documents, tests: see agent-page.tsx). A new setting goes in
 * the list of the fieldset it belongs to; a name the server's schema lacks is skipped, and a
 * setting no section names lands in "Other settings" under Basics, so none is ever left out.
 */
export interface AgentSection {
  /** Element id and URL fragment (`#agent-voice`); its heading is `<id>-title`. */
  id: string;
  /** The name in the navigation. */
  nav: string;
  /** The section's heading. */
  title: string;
  help?: string;
  settings: [legend: string, names: string[]][];
}

export const agentSections: AgentSection[] = [
  {
    id: 'agent-basics',
    nav: 'Basics',
    title: 'Basics',
    settings: [
      ['Agent', ['name', 'description', 'mode', 'preset_id', 'language']],
      ['Events and metadata', ['events_url', 'metadata']],
    ],
  },
  {
    id: 'agent-voice',
    nav: 'Voice',
    title: 'Voice & turn-taking',
    help: 'How a voice session listens, decides the caller has finished, and lets itself be interrupted.',
    settings: [
      [
        'Listening',
        [
          'vad_threshold',
          'min_silence_ms',
          'prefix_padding_ms',
          'max_utterance_ms',
          'expected_phrases',
          'expected_phrases_only',
        ],
      ],
      ['Interruptions', ['interruptions_enabled', 'interruption_min_speech_ms', 'backchannel_words', 'stop_words']],
      [
        'End of turn',
        [
          'endpointing_mode',
          'transcription_silence_ms',
          'preemptive_silence_ms',
          'endpointing_punctuation_ms',
          'endpointing_number_ms',
          'endpointing_max_ms',
          'endpointing_default_ms',
          'smart_turn_threshold',
          'statement_end_threshold',
          'statement_end_pitch',
        ],
      ],
      ['Session limits', ['idle_timeout_ms', 'max_duration_ms']],
      ['Phone calls', ['phone_numbers', 'phone_caller_id_as_user']],
    ],
  },
  {
    id: 'agent-answering',
    nav: 'Answering',
    title: 'Answering (LLM or webhook)',
    help: 'Enhanced mode answers with the preset’s language model and the system prompt; passthrough mode asks your webhook.',
    settings: [
      ['What the agent says', ['system_prompt', 'greeting', 'fallback_line']],
      ['Webhook (passthrough mode)', ['webhook_url', 'webhook_api_key', 'webhook_timeout_ms']],
    ],
  },
  {
    id: 'agent-knowledge',
    nav: 'Knowledge',
    title: 'Knowledge (RAG)',
    help: 'With RAG enabled, each answer is given the passages of these documents that match what was said.',
    settings: [['Retrieval', ['rag_enabled']]],
  },
  {
    id: 'agent-tools',
    nav: 'Tools',
    title: 'Tools',
    settings: [['Tools and call control', ['tools', 'end_call_enabled', 'transfer_enabled', 'transfer_to']]],
  },
  {
    id: 'agent-recording',
    nav: 'Recording',
    title: 'Recording & analysis',
    settings: [
      ['Recording (voice)', ['recording', 'recording_retention_days']],
      ['Post-call analysis', ['analysis']],
    ],
  },
  { id: 'agent-tests', nav: 'Tests', title: 'Tests', settings: [] },
];

export type Fieldsets = [legend: string, fields: PropertyInfo[]][];

/** The schema's settings placed in each section's fieldsets (by section id), the unnamed ones in Basics. */
export function placeSettings(fields: PropertyInfo[]): Map<string, Fieldsets> {
  const named = new Set(agentSections.flatMap((s) => s.settings.flatMap(([, names]) => names)));
  const placed = new Map<string, Fieldsets>();
  for (const section of agentSections) {
    const sets: Fieldsets = section.settings.map(([legend, names]) => [
      legend,
      names.flatMap((n) => fields.filter((f) => f.name === n)),
    ]);
    placed.set(
      section.id,
      sets.filter(([, inSet]) => inSet.length > 0),
    );
  }
  const others = fields.filter((f) => !named.has(f.name));
  if (others.length > 0) placed.get(agentSections[0]!.id)!.push(['Other settings', others]);
  return placed;
}
