/**
 * Parley's client SDK for the WebSocket voice transport: no dependencies, ESM, for browsers and
 * Node 20+. `VoiceConnection` is the protocol (Node and browsers); `VoiceCall` adds the browser's
 * microphone and speakers.
 */
export { VoiceConnection } from './voice-connection.js';
export type { AgentAudio, Ended, VoiceConnectionOptions, VoiceEvents } from './voice-connection.js';
export { ParleyApiError } from './api-error.js';
export { createVoiceSession } from './session-api.js';
export type { CreateSessionOptions, VoiceSessionGrant } from './session-api.js';
export type { AgentState } from './agent-state.js';
export type { TurnLatency } from './turn-latency.js';
export type * from './protocol.js';
export { flushingMessageTypes, knownServerMessageTypes } from './protocol.js';
export type { WebSocketConstructor, WebSocketLike } from './websocket-like.js';
export { floatToPcm16, pcm16ToFloat } from './pcm.js';
export { VoiceCall } from './browser/voice-call.js';
export type { VoiceCallOptions } from './browser/voice-call.js';
export { Microphone } from './browser/microphone.js';
export type { MicrophoneOptions } from './browser/microphone.js';
export { AudioPlayer } from './browser/player.js';
export type { PlaybackStats } from './browser/player.js';
