/**
 * How the episode API answers its service's errors, shared by the HTTP routes and /ws/episodes: caller errors with
 * their status and {code, message, field?, ...details}; infrastructure faults with their code, 503 when transient.
 */
import { CorralError } from '../core/errors.js';
import { callerErrorBody } from './rollouts-route.js';

/** Statuses of the caller errors that are not a plain 400. */
export const EPISODE_STATUS_BY_CODE: Partial<Record<string, number>> = {
  EPISODE_ERR_NOT_FOUND: 404,
  EPISODE_ERR_EXPIRED: 410,
  EPISODE_ERR_ALREADY_SCORED: 409,
  EPISODE_ERR_CLOSED: 409,
  EPISODE_ERR_UNKNOWN_TOOL: 404,
  EPISODE_ERR_DONE: 409,
  EPISODE_ERR_BUSY: 409,
  EPISODE_ERR_STEPPED: 409,
  EPISODE_ERR_NOT_DONE: 409,
};

export interface EpisodeErrorAnswer {
  status: number;
  body: { error: Record<string, unknown> & { code: string; message: string } };
  /** An infrastructure fault, worth a log line. */
  infrastructure: boolean;
}

/** The answer for a CorralError (quota refusals excepted: the app's error handler answers those); null for anything else. */
export function episodeErrorAnswer(error: unknown): EpisodeErrorAnswer | null {
  if (!CorralError.isInstance(error) || error.code === 'HTTP_ERR_QUOTA_EXCEEDED') return null;
  if (error.audience !== 'infrastructure') return { status: EPISODE_STATUS_BY_CODE[error.code] ?? 400, body: callerErrorBody(error), infrastructure: false };
  return { status: error.transient ? 503 : 500, body: { error: { code: error.code, message: error.message } }, infrastructure: true };
}
