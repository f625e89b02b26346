import type { AppDeps } from '../../app.js';
import type { Area } from '../../areas.js';
import { sdkGate } from '../../middleware/sdk-gate.js';
import { sdkRoutes } from './sdk.routes.js';

/** Everything under /sdk/v1: agent_token in the body, rate limited per agent token. */
export function sdkArea({ store, services, config }: AppDeps): Area {
  return {
    prefix: '/sdk/v1',
    admin: false,
    middleware: [sdkGate(store, services.rateLimit)],
    routes: sdkRoutes({
      chat: services.chat,
      voice: services.voice,
      readiness: services.readiness,
      maxMessageChars: config.maxMessageChars,
    }),
  };
}
