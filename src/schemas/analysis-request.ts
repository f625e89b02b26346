/**
 * A post-call analysis to run: written by end_session.lua into the analysis outbox in the same
 * step as the session's end (so a crash right after loses neither), moved into the BullMQ
 * `analysis` queue by the relay with `jobId` as the job id (queued once however often relayed).
 */
export interface AnalysisRequest {
  session_id: string;
  agent_id: string;
  requested_at: number;
}

export function analysisRequest(agentId: string, sessionId: string, now: number = Date.now()): string {
  const request: AnalysisRequest = { session_id: sessionId, agent_id: agentId, requested_at: now };
  return JSON.stringify(request);
}

/** BullMQ job ids may not contain `:`; one job per session. */
export function analysisJobId(sessionId: string): string {
  return `analysis-${sessionId}`;
}
