import type { JSX, RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Message } from '../api/types.js';
import { fetchRecording, type Recording } from '../api/recording.js';
import { ErrorNote, Loading } from '../ui/status.js';

/**
 * How far before a message's time a click seeks: a user's message is stored once transcribed,
 * after the words were said; an agent's once its answer is ready, as its audio starts.
 */
const leadInMs = { user: 3_000, agent: 500, tool: 0 } as const;

export interface RecordingState {
  recording: Recording | null | undefined;
  error: unknown;
}

/**
 * Fetches the conversation's recording (undefined while loading, null when there is none); null
 * `conversationId`: the conversation's record says it has none, so nothing is asked (no 404).
 */
export function useRecording(conversationId: string | null): RecordingState {
  const [state, setState] = useState<RecordingState>({ recording: undefined, error: undefined });
  useEffect(() => {
    if (conversationId === null) {
      setState({ recording: null, error: undefined });
      return undefined;
    }
    const controller = new AbortController();
    let url: string | null = null;
    setState({ recording: undefined, error: undefined });
    fetchRecording(conversationId, controller.signal).then(
      (recording) => {
        url = recording?.url ?? null;
        if (controller.signal.aborted) {
          if (url !== null) URL.revokeObjectURL(url);
          return;
        }
        setState({ recording, error: undefined });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ recording: null, error });
      },
    );
    return () => {
      controller.abort();
      if (url !== null) URL.revokeObjectURL(url);
    };
  }, [conversationId]);
  return state;
}

/** Seconds into the recording where a message's moment is heard (never before its start). */
export function seekSeconds(recording: Recording, message: Message): number | null {
  if (recording.startedAt === null) return null;
  const at = Date.parse(message.created_at) - recording.startedAt - leadInMs[message.role];
  return Math.max(0, at / 1000);
}

/** The call's audio above the transcript: left channel the caller, right the agent. */
export function RecordingPlayer({
  state,
  audio,
}: {
  state: RecordingState;
  audio: RefObject<HTMLAudioElement | null>;
}): JSX.Element | null {
  if (state.error !== undefined) return <ErrorNote error={state.error} prefix="The recording could not be loaded" />;
  if (state.recording === undefined) return <Loading what="Loading the recording" />;
  if (state.recording === null) return null;
  return (
    <section class="recording" aria-label="Call recording">
      <audio ref={audio} controls preload="metadata" src={state.recording.url} />
      <p class="help">Left: the caller. Right: the agent, as heard. Play a message to hear the call from there.</p>
    </section>
  );
}
