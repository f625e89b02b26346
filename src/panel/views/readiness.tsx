import type { JSX } from 'preact';
import type { Agent, AgentReadiness, BuiltInChoice, Page, ProvidersHealth } from '../api/types.js';
import { Link } from '../router.js';
import { plural } from '../ui/format.js';
import { Badge, ErrorNote } from '../ui/status.js';
import { notReadyWords, readinessLines } from './readiness-lines.js';
import type { Part } from './overview-data.js';

/** Voice and chat: ready, or the problems in the server's words, each said once. Nothing on a server without readiness. */
export function AgentReadinessFacts({ readiness }: { readiness: AgentReadiness | undefined }): JSX.Element | null {
  if (readiness === undefined) return null;
  return (
    <section aria-labelledby="readiness-title">
      <h2 id="readiness-title">Readiness</h2>
      <dl class="facts">
        {readinessLines(readiness).map((line) => [
          <dt key={`${line.label}-t`}>{line.label}</dt>,
          <dd key={`${line.label}-d`} data-readiness={line.channels.join(' ')}>
            {line.ready ? <Badge kind="ok">ready</Badge> : <Badge kind="bad">not ready</Badge>}
            {line.problems.length > 0 && (
              <ul class="problems">
                {line.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            )}
          </dd>,
        ])}
      </dl>
    </section>
  );
}

/** What a create or update answered in `warnings`: saved, but not all of it will work here. */
export function SaveWarnings({ warnings }: { warnings: string[] | undefined }): JSX.Element | null {
  if (warnings === undefined || warnings.length === 0) return null;
  return (
    <div class="note note-warn" role="status">
      <strong>
        <span aria-hidden="true">◆ </span>Saved, with {plural(warnings.length, 'warning')}:
      </strong>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

/** Warnings of an agent just created, shown once by its page (the form navigates there). */
const createdWarnings = new Map<string, string[]>();

export function rememberWarnings(agentId: string, warnings: string[] | undefined): void {
  if (warnings !== undefined && warnings.length > 0) createdWarnings.set(agentId, warnings);
}

export function takeWarnings(agentId: string): string[] | undefined {
  const w = createdWarnings.get(agentId);
  createdWarnings.delete(agentId);
  return w;
}

const capabilityNames = [
  ['stt', 'Speech to text'],
  ['llm', 'Language model'],
  ['tts', 'Text to speech'],
] as const;

function Choice({ choice }: { choice: BuiltInChoice }): JSX.Element {
  return (
    <>
      {choice.provider} · {choice.model}{' '}
      {choice.usable ? <Badge kind="ok">usable</Badge> : <Badge kind="bad">not usable</Badge>}
      {choice.problem !== null && <div class="muted">{choice.problem}</div>}
    </>
  );
}

/**
 * The overview's readiness: the built-in preset chosen for this box (what agents without a preset
 * use), providers an agent needs that fail, and the agents that cannot run voice or chat.
 */
export function ReadinessOverview(props: {
  providers: Part<ProvidersHealth>;
  agents: Part<Page<Agent>>;
}): JSX.Element | null {
  const { providers, agents } = props;
  const builtIn = providers.data?.built_in;
  // Providers that fail an agent: those the server counts as unserving, else failing ones with agents.
  const failing = (providers.data?.providers ?? []).filter((p) =>
    p.needed_by?.unserved !== undefined
      ? p.needed_by.unserved > 0
      : p.status !== 'ok' && p.needed_by !== undefined && p.needed_by.count > 0,
  );
  const notReady = (agents.data?.data ?? []).filter(
    (a) => a.readiness !== undefined && (!a.readiness.voice.ready || !a.readiness.chat.ready),
  );
  const knowsReadiness = agents.data?.data.some((a) => a.readiness !== undefined) === true;
  if (providers.data !== undefined && builtIn === undefined && !knowsReadiness) return null;
  return (
    <section aria-labelledby="ready-title">
      <h2 id="ready-title">Readiness</h2>
      {providers.error !== undefined && <ErrorNote error={providers.error} prefix="Providers could not be checked" />}
      {agents.error !== undefined && <ErrorNote error={agents.error} />}
      {providers.data !== undefined && (
        <p>
          Providers:{' '}
          {providers.data.status === 'ok' ? <Badge kind="ok">ok</Badge> : <Badge kind="warn">degraded</Badge>}
        </p>
      )}
      {builtIn !== undefined && (
        <>
          <h3>Built-in preset (agents without a preset)</h3>
          <dl class="facts">
            {capabilityNames.map(([key, name]) => [
              <dt key={`${key}-t`}>{name}</dt>,
              <dd key={`${key}-d`} data-built-in={key}>
                <Choice choice={builtIn[key]} />
              </dd>,
            ])}
          </dl>
        </>
      )}
      {failing.length > 0 && (
        <>
          <h3>Providers agents need that fail</h3>
          <ul>
            {failing.map((p) => (
              <li key={`${p.capability}-${p.provider}`}>
                {p.capability} {p.provider}: {p.detail ?? p.status.replace(/_/g, ' ')} — needed by{' '}
                {plural(p.needed_by!.unserved ?? p.needed_by!.count, 'agent')}
                {p.needed_by!.agents.length > 0 && ` (${p.needed_by!.agents.map((a) => a.name).join(', ')})`}
              </li>
            ))}
          </ul>
        </>
      )}
      {knowsReadiness && (
        <>
          <h3>Agents not ready</h3>
          {notReady.length === 0 ? (
            <p>Every agent can run voice and chat here.</p>
          ) : (
            <ul class="not-ready">
              {notReady.map((a) => (
                <li key={a.id}>
                  <Link href={`/agents/${a.id}`} class="name" title={a.name}>
                    {a.name}
                  </Link>
                  : {notReadyWords(a.readiness!)}
                </li>
              ))}
            </ul>
          )}
          {agents.data?.next_cursor !== null && (
            <p class="help">
              Of the first {agents.data?.data.length} agents; <Link href="/agents">all agents</Link>.
            </p>
          )}
        </>
      )}
    </section>
  );
}
