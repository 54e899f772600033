/** Per-call timeouts the model may choose, within bounds the server sets. Seconds on the wire, ms inside. */
import { z } from 'zod';

export const DEFAULT_CALL_TIMEOUT_S = 60;
export const MAX_CALL_TIMEOUT_S = 600;
/** Characters kept per output stream; the sandbox drains the rest without blocking the child. */
export const MAX_OUTPUT_CHARS = 30_000;

export const timeoutSecondsSchema = z
  .number()
  .positive()
  .max(MAX_CALL_TIMEOUT_S)
  .optional()
  .describe(`Seconds before the call is stopped (default ${DEFAULT_CALL_TIMEOUT_S}, at most ${MAX_CALL_TIMEOUT_S}).`);

export function timeoutMs(timeoutSeconds: number | undefined): number {
  return Math.round((timeoutSeconds ?? DEFAULT_CALL_TIMEOUT_S) * 1000);
}
