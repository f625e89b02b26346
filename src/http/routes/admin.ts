import type { AppDeps } from '../app.js';
import type { Area } from '../areas.js';
import { agentTestRoutes } from './agent-tests/agent-tests.routes.js';
import { agentRoutes } from './agents/agents.routes.js';
import { callRoutes } from './calls/calls.routes.js';
import { documentRoutes } from './documents/documents.routes.js';
import { conversationRoutes } from './conversations/conversations.routes.js';
import { recordingRoutes } from './conversations/recording.routes.js';
import { errorRoutes } from './errors/errors.routes.js';
import { livekitRoutes } from './livekit/livekit.routes.js';
import { nodeRoutes } from './nodes/nodes.routes.js';
import { presetRoutes } from './presets/presets.routes.js';
import { sessionRoutes } from './sessions/sessions.routes.js';

/** Everything under /admin/v1 (X-API-Key). */
export function adminAreas({ store, registry, services, config }: AppDeps): Area[] {
  return [
    {
      prefix: '/admin/v1',
      admin: true,
      routes: [
        ...agentRoutes(store, services.rag, services.recorder, services.readiness, services.demand, config.tools),
        ...agentTestRoutes(store, services.agentTests),
        ...presetRoutes(store, registry, services.rag, services.demand),
        ...sessionRoutes(store, services.recordings),
        ...conversationRoutes(store, services.recordings),
        ...recordingRoutes(store, services.recordings),
        ...errorRoutes(store),
        ...documentRoutes(store, services.rag, config.rag.maxUploadBytes),
        ...livekitRoutes(store, services.livekit, config),
        ...nodeRoutes(store),
        ...callRoutes(store, services.recorder, services.calls, config),
      ],
    },
  ];
}
