import { looksLikeGgufFile } from '../../schemas/gguf-model-id.js';
import type { Capability } from '../../schemas/provider-catalog.js';
import type { ProviderAvailability } from '../status/availability.js';

/** A preset section as far as usability goes: its provider, model and (TTS) voice. */
export interface SectionRef {
  provider: string;
  model: string;
  voice?: string;
}

/**
 * What this box can run right now, from one read of every provider's availability: why a preset
 * section cannot be used here, or null when it can. Reads nothing itself (no network, no files).
 */
export class Usability {
  constructor(readonly available: readonly ProviderAvailability[]) {}

  /** The availability entry of one provider. */
  of(capability: Capability, provider: string): ProviderAvailability | undefined {
    return this.available.find((a) => a.capability === capability && a.provider === provider);
  }

  /** Why `section` cannot serve `capability` here (naming the provider and the fix), or null. */
  problem(capability: Capability, section: SectionRef): string | null {
    const entry = this.of(capability, section.provider);
    if (entry === undefined) return `${section.provider} is not a ${capability} provider`;
    const invalid = entry.local_models.find((m) => m.model === section.model && m.status === 'invalid');
    if (invalid !== undefined)
      return `${section.provider}: model ${section.model} is invalid: ${invalid.problem ?? ''}`;
    // Models found on disk (installed or invalid): the section's model is one of the installed ones or not.
    if (entry.local_models.length > 0) {
      const installed = entry.local_models.filter((m) => m.status === 'installed').map((m) => m.model);
      return installed.includes(section.model) ? null : notInstalled(section, installed);
    }
    if (!entry.configured) return `${section.provider}: ${entry.reason ?? 'not usable here'}`;
    if (entry.kind === 'local' && !entry.models.includes(section.model)) return notInstalled(section, entry.models);
    if (entry.kind === 'binary' && section.voice !== undefined && !entry.voices.includes(section.voice))
      return `${section.provider}: voice ${section.voice} is not installed (installed: ${entry.voices.join(', ')})`;
    return null;
  }
}

function notInstalled(section: SectionRef, installed: readonly string[]): string {
  const fix = looksLikeGgufFile(section.model)
    ? `no file MODELS_DIR/${section.model}`
    : 'npm run models downloads the others';
  return `${section.provider}: model ${section.model} is not installed (installed: ${installed.join(', ') || 'none'}; ${fix})`;
}
