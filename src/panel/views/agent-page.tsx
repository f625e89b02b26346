import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useMemo } from 'preact/hooks';
import type { PropertyInfo } from '../api/schema.js';
import type { Agent, SavedAgent } from '../api/types.js';
import { ErrorNote } from '../ui/status.js';
import { AgentTests } from './agent-tests.js';
import { agentSections, placeSettings, type AgentSection } from './agent-sections.js';
import { SaveBar, SettingsFieldsets, useSettingsForm } from './agent-settings.js';
import { Stats, Token } from './agent-summary.js';
import { Documents } from './documents.js';

/**
 * An agent's sections (Basics, Voice & turn-taking, Answering, Knowledge, Tools, Recording &
 * analysis, Tests) under a navigation that stays at the top of the window and jumps to each. The
 * settings of every section are one form, saved by the bar that follows them.
 */
export function AgentSections(props: {
  agent: Agent;
  /** The settings the server accepts; empty when /openapi.json could not be read (`schemaError`). */
  fields: PropertyInfo[];
  schemaError: unknown;
  onChange: (a: Agent) => void;
  onSaved: (a: SavedAgent) => void;
}): JSX.Element {
  const { agent, fields } = props;
  const form = useSettingsForm(agent, fields, props.onSaved);
  const placed = useMemo(() => placeSettings(fields), [fields]);
  useEffect(() => {
    // Opened at a section's address (`…/agents/<id>#agent-tools`): show that section.
    const id = location.hash.slice(1);
    if (agentSections.some((s) => s.id === id)) document.getElementById(`${id}-title`)?.scrollIntoView();
  }, []);
  // Sections with settings come first (Tests, without, last): the save bar follows them.
  const withSettings = agentSections.filter((s) => s.settings.length > 0);
  const without = agentSections.filter((s) => s.settings.length === 0);
  // What a section holds beside its settings: the agent at a glance leads Basics; documents and
  // tests follow the settings they go with.
  const lead: Record<string, ComponentChildren> = {
    'agent-basics': (
      <>
        <Stats id={agent.id} />
        <Token agent={agent} onChange={props.onChange} />
      </>
    ),
  };
  const follow: Record<string, ComponentChildren> = {
    'agent-knowledge': <Documents agentId={agent.id} ragEnabled={agent.rag_enabled} />,
    'agent-tests': <AgentTests agentId={agent.id} />,
  };
  return (
    <>
      <SectionNav sections={agentSections} />
      {props.schemaError !== undefined && (
        <ErrorNote error={props.schemaError} prefix="The settings form could not be built" />
      )}
      {/* The bar stays at the foot of the window while the sections with settings scroll by. */}
      <div class="agent-settings">
        {withSettings.map((section) => (
          <PageSection key={section.id} section={section}>
            {lead[section.id]}
            <SettingsFieldsets form={form} sets={placed.get(section.id) ?? []} />
            {follow[section.id]}
          </PageSection>
        ))}
        {fields.length > 0 && <SaveBar form={form} />}
      </div>
      {without.map((section) => (
        <PageSection key={section.id} section={section}>
          {lead[section.id]}
          {follow[section.id]}
        </PageSection>
      ))}
    </>
  );
}

function PageSection({ section, children }: { section: AgentSection; children: ComponentChildren }): JSX.Element {
  return (
    <section id={section.id} class="agent-section" aria-labelledby={`${section.id}-title`}>
      <h2 id={`${section.id}-title`} tabIndex={-1}>
        {section.title}
      </h2>
      {section.help !== undefined && <p class="help">{section.help}</p>}
      {children}
    </section>
  );
}

/** The in-page navigation: a link per section; following one moves focus to its heading. */
function SectionNav({ sections }: { sections: AgentSection[] }): JSX.Element {
  const jump = (e: MouseEvent, id: string) => {
    const heading = document.getElementById(`${id}-title`);
    if (heading === null || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    heading.scrollIntoView(); // its scroll-margin keeps it clear of this sticky navigation
    heading.focus({ preventScroll: true });
    history.replaceState(history.state, '', `#${id}`);
  };
  return (
    <nav class="section-nav" aria-label="Sections of this agent">
      <ul>
        {sections.map((s) => (
          <li key={s.id}>
            <a href={`#${s.id}`} onClick={(e) => jump(e, s.id)}>
              {s.nav}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
