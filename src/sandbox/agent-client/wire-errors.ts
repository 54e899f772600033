import { CorralError, type ErrorCode } from '../../core/errors.js';
import type { WireError } from './wire-protocol.js';

const WIRE_TO_CORRAL: Readonly<Record<string, ErrorCode>> = {
  NOT_FOUND: 'SBX_ERR_NOT_FOUND',
  PERMISSION: 'SBX_ERR_PERMISSION',
  INVALID_ARGUMENT: 'SBX_ERR_INVALID_ARGUMENT',
  TIMEOUT: 'SBX_ERR_TIMEOUT',
  TOO_LARGE: 'SBX_ERR_OUTPUT_LIMIT',
  UNSUPPORTED: 'SBX_ERR_UNSUPPORTED',
  INTERNAL: 'SBX_ERR_INTERNAL',
};

/** Turns an error the agent reported into a CorralError; unknown wire codes count as agent faults. */
export function corralErrorFromWire(error: WireError, context: { op: string; sandboxId: string }): CorralError {
  const code = WIRE_TO_CORRAL[error.code] ?? 'SBX_ERR_INTERNAL';
  return new CorralError(code, `${context.op}: ${error.message}`, {
    details: { op: context.op, sandboxId: context.sandboxId, wireCode: error.code },
  });
}

/** Resolves to null when the call failed with SBX_ERR_NOT_FOUND ("not found is a value"). */
export async function nullIfNotFound<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (CorralError.hasCode(error, 'SBX_ERR_NOT_FOUND')) return null;
    throw error;
  }
}
