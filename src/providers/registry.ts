// CONTRACT (owned by the health helper): replace this file's body, keep these exports.
import type { Config } from '../config.js';
import type { Capability } from './catalog.js';
import type { z } from 'zod';
import type { providerAvailabilitySchema } from '../records/preset.js';

export type ProviderAvailability = z.infer<typeof providerAvailabilitySchema>;

export interface ProviderCheck {
  capability: Capability;
  provider: string;
  status: 'ok' | 'not_configured' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

export class ProviderRegistry {
  constructor(readonly config: Config) {}
  async availability(_capability?: Capability): Promise<ProviderAvailability[]> {
    throw new Error('not implemented');
  }
  async check(): Promise<ProviderCheck[]> {
    throw new Error('not implemented');
  }
}
