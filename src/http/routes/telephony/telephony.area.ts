import type { AppDeps } from '../../app.js';
import type { Area } from '../../areas.js';
import { telephonyRoutes } from './telephony.routes.js';

/** Everything under /telephony/v1: carrier webhooks, authenticated by the carrier's signature. */
export function telephonyArea({ store, services, config, logger }: AppDeps): Area {
  return {
    prefix: '/telephony/v1',
    admin: false,
    routes: telephonyRoutes({
      store,
      calls: services.calls,
      logger,
      twilio: config.twilio,
      publicUrl: config.publicUrl,
    }),
  };
}
