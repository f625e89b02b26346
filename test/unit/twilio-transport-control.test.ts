import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { TwilioTransport } from '../../src/realtime/telephony/twilio-transport.js';
import type { CarrierCalls } from '../../src/telephony/carrier-calls.js';

/** The socket side a transport uses: what it sent, and whether it was closed. */
function socket() {
  const sent: unknown[] = [];
  const ws = {
    OPEN: 1,
    CONNECTING: 0,
    readyState: 1,
    send: (text: string) => sent.push(JSON.parse(text)),
    close: () => (ws.readyState = 3),
  };
  return { ws: ws as unknown as WebSocket, sent };
}

/** A carrier that records its calls and fails when told to. */
function carrier(fail = false) {
  const calls: string[] = [];
  const api: CarrierCalls = {
    hangUp: (sid) => (calls.push(`hangUp ${sid}`), fail ? Promise.reject(new Error('HTTP 500')) : Promise.resolve()),
    transfer: (sid, to) => (calls.push(`transfer ${sid} ${to}`), Promise.resolve()),
  };
  return { api, calls };
}

describe('call control on a phone call', () => {
  it('transfer redirects the call through the carrier', async () => {
    const c = carrier();
    const t = new TwilioTransport(socket().ws, 'MZ1', 'CA1', { calls: c.api, failed: () => {} });
    await t.transfer('+493012345678');
    expect(c.calls).toEqual(['transfer CA1 +493012345678']);
    await expect(t.transfer(null)).rejects.toThrow(/no transfer destination/);
  });

  it('without the REST API transfer is refused with the setting to fix', async () => {
    const t = new TwilioTransport(socket().ws, 'MZ1', 'CA1');
    await expect(t.transfer('+493012345678')).rejects.toThrow(/TWILIO_ACCOUNT_SID/);
  });

  it('a session ended by Parley completes the call; a caller who hung up is not hung up again', async () => {
    const ended = carrier();
    const byParley = new TwilioTransport(socket().ws, 'MZ1', 'CA1', { calls: ended.api, failed: () => {} });
    byParley.close();
    expect(ended.calls).toEqual(['hangUp CA1']);

    const gone = carrier();
    const byCaller = new TwilioTransport(socket().ws, 'MZ2', 'CA2', { calls: gone.api, failed: () => {} });
    byCaller.finish(); // the caller's `stop`
    byCaller.close();
    expect(gone.calls).toEqual([]);
  });

  it('a hang-up the carrier refuses is told, not thrown', async () => {
    const c = carrier(true);
    const failures: unknown[] = [];
    const t = new TwilioTransport(socket().ws, 'MZ1', 'CA1', {
      calls: c.api,
      failed: (_what, err) => failures.push(err),
    });
    t.close();
    await new Promise((r) => setImmediate(r));
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('HTTP 500');
  });
});
