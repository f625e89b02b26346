import type { JSX } from 'preact';
import { ms } from '../ui/format.js';

/** The stages of a voice turn, in the order the user waits through them. */
export const stages = [
  { key: 'endpointing_ms', label: 'endpointing', mark: 'E' },
  { key: 'stt_ms', label: 'STT', mark: 'S' },
  { key: 'response_ms', label: 'response', mark: 'R' },
  { key: 'first_audio_ms', label: 'first audio', mark: 'A' },
] as const;

/** The total a bar shows: the stages' sum. */
export function barTotal(timings: Record<string, number>): number {
  return stages.reduce((sum, s) => sum + (timings[s.key] ?? 0), 0);
}

/**
 * One turn's timings as a stacked bar scaled to `scale` ms, each segment patterned and lettered,
 * with the figures also written out (never colour alone).
 */
export function TimingBar({ timings, scale }: { timings: Record<string, number>; scale: number }): JSX.Element {
  const present = stages.filter((s) => timings[s.key] !== undefined);
  const described = present.map((s) => `${s.label} ${ms(timings[s.key])}`).join(', ');
  const e2e = timings['end_to_end_ms'];
  return (
    <div class="timing">
      <div class="bar" role="img" aria-label={`Timings: ${described}`}>
        {present.map((s) => (
          <span
            key={s.key}
            class={`seg seg-${s.mark}`}
            style={{ width: `${Math.max(0.5, (100 * timings[s.key]!) / Math.max(1, scale))}%` }}
            title={`${s.label}: ${ms(timings[s.key])}`}
          >
            {s.mark}
          </span>
        ))}
      </div>
      <p class="timing-text" aria-hidden="true">
        {described}
        {e2e !== undefined && ` · end to end ${ms(e2e)}`}
        {Object.entries(timings)
          .filter(([k]) => k !== 'end_to_end_ms' && !stages.some((s) => s.key === k))
          .map(([k, v]) => ` · ${k.replace(/_ms$/, '').replace(/_/g, ' ')} ${ms(v)}`)
          .join('')}
      </p>
    </div>
  );
}

export function TimingLegend(): JSX.Element {
  return (
    <ul class="legend" aria-label="Timing bar legend">
      {stages.map((s) => (
        <li key={s.key}>
          <span class={`seg seg-${s.mark}`} aria-hidden="true">
            {s.mark}
          </span>{' '}
          {s.label}
        </li>
      ))}
    </ul>
  );
}
