// A minimal @livekit/agents agent for bench/livekit-agents-proc.ts: each job process prewarms the
// Silero VAD (what a voice agent does), then marks itself ready in PARLEY_BENCH_READY_DIR.
import { defineAgent } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export default defineAgent({
  prewarm: async (proc) => {
    proc.userData.vad = await silero.VAD.load();
    writeFileSync(join(process.env.PARLEY_BENCH_READY_DIR ?? '/tmp', String(process.pid)), '');
  },
  entry: async () => {},
});
