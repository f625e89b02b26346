import type { JSX } from 'preact';

export interface TalkProps {
  agent: { id: string; name: string; token: string };
  baseUrl: string;
}

/** Placeholder: the client branch's voice talk component replaces this file. */
export function Talk(_props: TalkProps): JSX.Element {
  return <p class="note">Talk is not available in this build.</p>;
}
