import { JobStatus } from '@livekit/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startLivekitBed, type LivekitBed } from '../support/fake-livekit/livekit-bed.js';
import { FakeLivekit } from '../support/fake-livekit/server.js';
import type { Reply } from '../support/http-receiver.js';
import type { TestParley } from '../support/parley.js';

/**
 * Issue 14 item 2 on LiveKit: a webhook reply's `transfer` hands the (SIP) caller over with
 * livekit-server-sdk's SipClient.transferSipParticipant against the fake LiveKit's Twirp API,
 * which checks the JWT's `roomAdmin` on the room and the SIP `call` grant. The session then ends
 * `transferred` (not `participant_left`, though the transferred caller leaves the room); a refused
 * transfer is an error record and the conversation goes on.
 */

let bed: LivekitBed;
let fake: FakeLivekit;
let p: TestParley;
let reply: (transcript: string) => Reply;

beforeAll(async () => {
  bed = await startLivekitBed({ transcribe: () => 'unused', reply: (t) => reply(t) });
  ({ fake, p } = bed);
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  fake.transferFailure = null;
  fake.onTransfer = null;
});

async function call(name: string) {
  const { agentId, job, room } = await bed.dispatch(name, { transfer_to: '+1 510 555 0100' }, (r) =>
    r.userJoins('sip_+15550001111'),
  );
  const sessionId = (await eventually(
    async () => (await p.request('GET', `/admin/v1/sessions?agent_id=${agentId}`)).body.data[0]?.id as string,
    (id) => id !== undefined,
    { what: 'session' },
  ))!;
  return { room, job, sessionId };
}

const session = async (id: string) => (await p.request('GET', `/admin/v1/sessions/${id}`)).body;

describe('transfer on LiveKit', () => {
  it('SIP transfer through the Twirp API after the words; the session ends `transferred`', async () => {
    reply = () => ({ body: { response: 'Transferring you to a colleague.', action: { type: 'transfer' } } });
    const { room, job, sessionId } = await call('transfer-ok');
    // LiveKit moves the caller out of the room once the transfer is done.
    fake.onTransfer = () => room.userLeaves();
    room.chat('I want to speak to a person');
    await eventually(
      () => session(sessionId),
      (s) => s.status === 'ended',
      { what: 'session end', timeoutMs: 20_000 },
    );
    expect(await session(sessionId)).toMatchObject({ end_reason: 'transferred' });
    expect(fake.transfers).toEqual([
      {
        room: 'transfer-ok',
        participantIdentity: 'sip_+15550001111',
        transferTo: 'tel:+15105550100',
        authorized: true,
      },
    ]);
    // The closing words were spoken (captioned) before the transfer.
    expect(room.captions().map((c) => c.text)).toContain('Transferring you to a colleague.');
    await eventually(
      () => fake.jobs.get(job.id)!.statuses,
      (s) => s.includes(JobStatus.JS_SUCCESS),
      { what: 'job success' },
    );
  });

  it('a refused transfer is a transfer_failed record; the call goes on', async () => {
    fake.transferFailure = { status: 400, code: 'invalid_argument', msg: 'participant is not a SIP participant' };
    reply = (t) =>
      t === 'transfer me'
        ? { body: { response: 'One moment.', action: { type: 'transfer', to: 'sip:sales@pbx.example.com' } } }
        : { body: { response: 'Still here.' } };
    const { room, sessionId } = await call('transfer-refused');
    const before = fake.transfers.length;
    room.chat('transfer me');
    const errors = await eventually(
      async () => (await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`)).body.data as { type: string }[],
      (e) => e.length > 0,
      { what: 'transfer_failed record', timeoutMs: 20_000 },
    );
    expect(errors[0]).toMatchObject({ type: 'transfer_failed' });
    expect(fake.transfers.slice(before)).toMatchObject([{ transferTo: 'sip:sales@pbx.example.com', authorized: true }]);
    room.chat('are you there?');
    await eventually(
      () => room.captions().map((c) => c.text),
      (c) => c.includes('Still here.'),
      { what: 'the next answer', timeoutMs: 20_000 },
    );
    expect((await session(sessionId)).status).toBe('active');
    room.userLeaves();
    await eventually(
      () => session(sessionId),
      (s) => s.status === 'ended',
      { what: 'session end' },
    );
    expect(await session(sessionId)).toMatchObject({ end_reason: 'participant_left' });
  });
});
