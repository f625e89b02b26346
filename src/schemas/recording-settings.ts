import { z } from 'zod';

/** Whether an agent's voice sessions are recorded, and which sides (README "Recordings"). */
export const recordingModes = ['off', 'on', 'caller_only'] as const;
export type RecordingMode = (typeof recordingModes)[number];

export const defaultRecordingSettings = {
  recording: 'off' as RecordingMode,
  recording_retention_days: null as number | null,
};

/** The recording settings an operator writes (create and patch). */
export const recordingSettingsShape = {
  recording: z.enum(recordingModes).meta({
    description:
      'Voice sessions recorded as WAV: `on` both sides (left channel the caller, right the agent as heard), `caller_only` the caller alone, `off` none.',
  }),
  recording_retention_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .nullable()
    .meta({ description: 'Recordings older than this many days are deleted; null keeps them.' }),
};

/** The same settings as read back. */
export const recordingRecordShape = {
  recording: z.enum(recordingModes),
  recording_retention_days: z.number().int().nullable(),
};
