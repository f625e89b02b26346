import { TokenVerifier } from 'livekit-server-sdk';
import { describe, expect, it } from 'vitest';
import { clientUrl, mintParticipantToken, mintWorkerToken, workerUrl } from '../../src/realtime/livekit/tokens.js';

const creds = { url: 'wss://lk.example.test', apiKey: 'APIunit', apiSecret: 'unit-secret-unit-secret-0123456789' };
const verify = (token: string) => new TokenVerifier(creds.apiKey, creds.apiSecret).verify(token);

describe('LiveKit URLs', () => {
  it.each([
    ['https://lk.example.test', 'wss://lk.example.test/agent'],
    ['http://localhost:7880', 'ws://localhost:7880/agent'],
    ['wss://lk.example.test/', 'wss://lk.example.test/agent'],
    ['wss://proxy.example.test/livekit', 'wss://proxy.example.test/livekit/agent'],
    ['wss://proxy.example.test/livekit/?region=eu', 'wss://proxy.example.test/livekit/agent?region=eu'],
  ])('the worker endpoint of %s is %s', (url, expected) => {
    expect(workerUrl(url)).toBe(expected);
  });

  it('clients get ws(s)', () => {
    expect(clientUrl('https://lk.example.test')).toBe('wss://lk.example.test');
    expect(clientUrl('ws://localhost:7880')).toBe('ws://localhost:7880');
  });
});

describe('LiveKit tokens', () => {
  it('the worker token is HS256, issued by the API key, with only the agent grant', async () => {
    const token = await mintWorkerToken(creds);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg).toBe('HS256');
    const claims = await verify(token);
    expect((claims as unknown as { iss: string }).iss).toBe(creds.apiKey);
    expect(claims.video).toEqual({ agent: true });
  });

  it('a participant token carries the room configuration that dispatches the agent', async () => {
    const token = await mintParticipantToken(creds, {
      room: 'parley-ses_x',
      identity: 'caller',
      ttlS: 120,
      dispatch: { agentName: 'parley', metadata: { session_id: 'ses_x', agent_id: 'agt_y' } },
    });
    const claims = await verify(token);
    expect(claims.sub).toBe('caller');
    expect(claims.video).toMatchObject({ room: 'parley-ses_x', roomJoin: true, canPublish: true, canSubscribe: true });
    expect(claims.roomConfig?.agents).toHaveLength(1);
    expect(claims.roomConfig!.agents[0]!.agentName).toBe('parley');
    expect(JSON.parse(claims.roomConfig!.agents[0]!.metadata)).toEqual({ session_id: 'ses_x', agent_id: 'agt_y' });
    const { exp, nbf } = claims as unknown as { exp: number; nbf: number };
    expect(exp - nbf).toBe(120);
  });
});
