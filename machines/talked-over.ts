import type { SessionContext } from './session.types.js';

/**
 * What the session machine does while the agent speaks (an answer, or the greeting) and the user
 * talks over it, as two states for the speaking state that holds them: `playing` pauses playback
 * on the first window that may be speech (`speech_onset`), and `paused` lets the words decide. It
 * is a barge-in if the speech says a stop word, or lasts `interruption_min_speech_ms` and is not an
 * acknowledgement; otherwise (a click, a cough, "uh-huh") playback resumes where it paused. While
 * the user talks, the recogniser's hypothesis so far decides as soon as it says enough
 * (turn-words/barge-in.ts), or without one speech that goes on long; the rest waits for the
 * transcript of the speech once it ends. Only
 * names of the machine's actions, guards, actors and delays appear here (session.machine.ts
 * defines them).
 *
 * @param playing the id of the `playing` state these states go back to, e.g.
 *   `#session.active.turn.speaking.playing`
 */
export function talkedOver(playing: string) {
  return {
    initial: 'playing',
    states: {
      playing: {
        on: {
          SPEECH_ONSET: { guard: 'interruptible', target: 'paused' },
          SPEECH_START: { guard: 'interruptible', target: 'paused' },
        },
      },
      paused: {
        entry: ['pausePlayback', 'startOverlap'],
        initial: 'talking',
        states: {
          talking: {
            after: { interruptionMinSpeech: { actions: 'overlapLongEnough' } },
            invoke: { src: 'overhearing' },
            on: {
              // Interrupted mid-speech: the user goes on talking, and all of it is the next turn.
              OVERHEARING: [
                { guard: 'saysStop', target: '#session.active.interrupted', actions: 'holdOverheard' },
                { guard: 'realInterruptionSoFar', target: '#session.active.interrupted', actions: 'holdOverheard' },
              ],
              LONG_SPEECH: { guard: 'longEnough', target: '#session.active.interrupted', actions: 'holdOverheard' },
              SPEECH_END: { target: 'checking', actions: 'overhear' },
              // The onset did not last `min_speech`: not speech.
              SPEECH_DISMISSED: { target: playing, actions: 'resumePlayback' },
            },
          },
          checking: {
            invoke: {
              src: 'overhear',
              input: ({ context }: { context: SessionContext }) => ({
                audio: context.overheard?.audio ?? new Int16Array(0),
                startMs: context.overheard?.startMs ?? 0,
              }),
            },
            on: {
              SPEECH_START: 'talking',
              OVERHEARD: [
                { guard: 'saysStop', target: '#session.active.interrupted', actions: 'keepTranscript' },
                { guard: 'realInterruption', target: '#session.active.interrupted', actions: 'keepTranscript' },
                { target: playing, actions: ['resumePlayback', 'forgetOverheard'] },
              ],
            },
          },
        },
      },
    },
  } as const;
}
