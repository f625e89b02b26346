/**
 * Agent test cases over the Admin API (issue 24): saved, read, replaced and deleted; every problem
 * of a bad case named in one 400 `validation_error`; runs refused for unknown agents and cases; a
 * run cut by a shutdown stored as `error`.
 */
import { describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { parleyForFile } from '../support/parley.js';

const bed = parleyForFile();

const goodCase = {
  name: 'greets',
  turns: [{ say: 'hello there' }, { say: 'what time is it', pause_ms: 200, interrupt_after_ms: 800 }],
  expect: [
    { type: 'says', phrase: 'hello', turn: 1 },
    { type: 'says', pattern: '\\d+ (am|pm)' },
    { type: 'tool_called', name: 'clock', arguments: { zone: 'UTC' } },
    { type: 'call_ended' },
    { type: 'transferred', to: 'sip:desk@pbx.example.com' },
    { type: 'wait_under_ms', ms: 2000 },
    { type: 'judge', question: 'Was the agent polite?' },
  ],
};

describe('agent test cases', () => {
  it('are created, listed, read, replaced and deleted', async () => {
    const { p } = bed;
    const agent = await createAgent(p);
    const created = await p.request('POST', `/admin/v1/agents/${agent.id}/tests`, { body: goodCase });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent_id: agent.id, ...goodCase });
    expect(created.body.id).toMatch(/^tst_/);
    const base = `/admin/v1/agents/${agent.id}/tests`;
    expect((await p.request('GET', base)).body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    expect((await p.request('GET', `${base}/${created.body.id}`)).body).toEqual(created.body);
    const replaced = await p.request('PUT', `${base}/${created.body.id}`, {
      body: { ...goodCase, name: 'renamed', expect: [{ type: 'call_ended' }] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.body.id, name: 'renamed', expect: [{ type: 'call_ended' }] });
    expect((await p.request('DELETE', `${base}/${created.body.id}`)).status).toBe(204);
    const gone = await p.request('GET', `${base}/${created.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
    expect((await p.request('DELETE', `${base}/${created.body.id}`)).status).toBe(404);
  });

  it('name every problem of a bad case in one validation_error', async () => {
    const { p } = bed;
    const agent = await createAgent(p);
    const res = await p.request('POST', `/admin/v1/agents/${agent.id}/tests`, {
      body: {
        name: '',
        turns: [{ say: 'hi', interrupt_after_ms: 100, shout: true }],
        expect: [
          { type: 'says', pattern: '(unclosed' },
          { type: 'says' },
          { type: 'says', phrase: 'x', turn: 3 },
          { type: 'wait_under_ms', ms: 0 },
          { type: 'sings' },
          { type: 'tool_called' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const paths = (res.body.error.details as { path: string; message: string }[]).map((d) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'body.name',
        'body.turns.0.shout',
        'body.turns.0.interrupt_after_ms',
        'body.expect.0.pattern',
        'body.expect.1.phrase',
        'body.expect.2.turn',
        'body.expect.3.ms',
        'body.expect.4.type',
        'body.expect.5.name',
      ]),
    );
    const regex = res.body.error.details.find((d: { path: string }) => d.path === 'body.expect.0.pattern');
    expect(regex.message).toMatch(/regular expression/);
    const kind = res.body.error.details.find((d: { path: string }) => d.path === 'body.expect.4.type');
    expect(kind.message).toMatch(/'says' \| 'tool_called' \| 'call_ended'/);
    const empty = await p.request('POST', `/admin/v1/agents/${agent.id}/tests`, { body: {} });
    expect(empty.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'body.name',
      'body.turns',
      'body.expect',
    ]);
  });

  it('belong to an agent that exists; runs need cases that exist', async () => {
    const { p } = bed;
    const missing = 'agt_01jd3n6v8m0000000000000000';
    expect((await p.request('POST', `/admin/v1/agents/${missing}/tests`, { body: goodCase })).status).toBe(404);
    expect((await p.request('GET', `/admin/v1/agents/${missing}/tests`)).status).toBe(404);
    expect((await p.request('POST', `/admin/v1/agents/${missing}/tests/runs`, { body: {} })).status).toBe(404);
    const agent = await createAgent(p);
    expect((await p.request('GET', `/admin/v1/agents/${agent.id}/tests/nonsense`)).status).toBe(400);
    const none = await p.request('POST', `/admin/v1/agents/${agent.id}/tests/runs`, { body: {} });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('no_test_cases');
    const unknown = await p.request('POST', `/admin/v1/agents/${agent.id}/tests/runs`, {
      body: { case_ids: ['tst_01jd3n6v8m0000000000000000'] },
    });
    expect(unknown.status).toBe(404);
    expect((await p.request('GET', `/admin/v1/agents/${agent.id}/tests/runs`)).body).toEqual({
      data: [],
      next_cursor: null,
    });
    expect((await p.request('GET', `/admin/v1/agents/${agent.id}/tests`, { apiKey: null })).status).toBe(401);
  });

  it('a run cut by a shutdown is stored as error', async () => {
    const agent = await createAgent(bed.p, { greeting: null });
    await bed.p.request('POST', `/admin/v1/agents/${agent.id}/tests`, {
      body: {
        name: 'long',
        turns: [{ say: 'one two three four five six seven eight nine ten' }],
        expect: [{ type: 'call_ended' }],
      },
    });
    const started = await bed.p.request('POST', `/admin/v1/agents/${agent.id}/tests/runs`, { body: {} });
    expect(started.status).toBe(202);
    const p = await bed.restart();
    const run = await p.request('GET', `/admin/v1/agents/${agent.id}/tests/runs/${started.body.run_id}`);
    expect(run.body).toMatchObject({ status: 'error', error: expect.stringMatching(/^shutdown/) });
  });

  it('a run whose process died (no beat for 30 s) is stored as error by the next process', async () => {
    const agent = await createAgent(bed.p);
    const created = await bed.p.request('POST', `/admin/v1/agents/${agent.id}/tests`, { body: goodCase });
    // As a killed process leaves it: running, its last beat a minute old.
    const run = await bed.p.parley.store.agentTests.createRun(agent.id, [created.body.id]);
    run.status = 'running';
    await bed.p.parley.store.agentTests.saveRun(run, Date.now() - 60_000);
    const p = await bed.restart();
    await expect
      .poll(async () => (await p.request('GET', `/admin/v1/agents/${agent.id}/tests/runs/${run.id}`)).body)
      .toMatchObject({ status: 'error', error: expect.stringMatching(/^lost/) });
  });
});
