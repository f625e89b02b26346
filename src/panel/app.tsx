import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { adminKey, onAuthChange, signOut } from './api/auth.js';
import { Link, useLocation } from './router.js';
import { SignIn } from './sign-in.js';
import { PageTitle } from './ui/controls.js';
import { AgentView } from './views/agent.js';
import { AgentsView } from './views/agents.js';
import { ConversationView } from './views/conversation.js';
import { ConversationsView } from './views/conversations.js';
import { ErrorsView } from './views/errors.js';
import { LiveKitView } from './views/livekit.js';
import { OverviewView } from './views/overview.js';
import { PresetEditor } from './views/preset-editor.js';
import { PresetsView } from './views/presets.js';
import { SessionsView } from './views/sessions.js';

const sections: [path: string, label: string][] = [
  ['/', 'Overview'],
  ['/agents', 'Agents'],
  ['/presets', 'Presets'],
  ['/conversations', 'Conversations'],
  ['/sessions', 'Sessions'],
  ['/errors', 'Errors'],
  ['/livekit', 'LiveKit'],
];

export function App(): JSX.Element {
  const [auth, setAuth] = useState({ signedIn: adminKey() !== null, notice: null as string | null });
  useEffect(() => onAuthChange(setAuth), []);
  if (!auth.signedIn) return <SignIn notice={auth.notice} />;
  return <Shell />;
}

function Shell(): JSX.Element {
  const { path } = useLocation();
  const section = sections.find(([p]) => (p === '/' ? path === '/' : path === p || path.startsWith(`${p}/`)));
  useEffect(() => {
    document.title = `${section?.[1] ?? 'Not found'} · Parley admin`;
  }, [section]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Parley admin</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([p, label]) => (
              <li key={p}>
                <Link href={p} aria-current={section?.[0] === p ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={() => signOut('Signed out.')}>
          Sign out
        </button>
      </header>
      <main id="main">
        <View path={path} />
      </main>
    </>
  );
}

function View({ path }: { path: string }): JSX.Element {
  const [, area, id] = path.split('/');
  switch (area) {
    case '':
    case undefined:
      return <OverviewView />;
    case 'agents':
      return id === undefined ? <AgentsView /> : <AgentView key={id} id={id} />;
    case 'presets':
      return id === undefined ? <PresetsView /> : <PresetEditor key={id} id={id} />;
    case 'conversations':
      return id === undefined ? <ConversationsView /> : <ConversationView key={id} id={id} />;
    case 'sessions':
      return <SessionsView />;
    case 'errors':
      return <ErrorsView />;
    case 'livekit':
      return <LiveKitView />;
    default:
      return (
        <>
          <PageTitle>Page not found</PageTitle>
          <p>
            There is no panel page at this address. <Link href="/">Go to the overview</Link>.
          </p>
        </>
      );
  }
}
