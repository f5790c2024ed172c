import type { ProtocolId } from './protocols/protocol.js';
import type { ChatMessage } from '../schema/agentIo.js';
import type { ChatReply } from './chatReply.js';

/** One model call an agent made through the proxy, as data: what it asked, what it got, when. */
export interface Exchange {
  /** 1-based order of the call within the trial. */
  index: number;
  started: string;
  ended: string;
  model: string;
  messages: ChatMessage[];
  toolNames: string[];
  streamed: boolean;
  /** How it was answered: live upstream, replayed cassette, or not at all. */
  source: 'live' | 'replayed' | 'none';
  reply: ChatReply | null;
  /** Why there is no reply (upstream status, cassette miss, ...). */
  error: string | null;
  /** The wire protocol of the call (absent: chat completions, or a handed-over messages array). */
  protocol?: ProtocolId;
}

/** What one trial's proxy path saw, plus the fault that makes the trial errored (if any). */
export interface TrialTraffic {
  exchanges: Exchange[];
  runError: { code: string; message: string } | null;
}
