import { CorralError, type ErrorCode } from '../../../../src/core/errors.js';

/** The corral code a promise rejects with, or 'resolved'; anything that is not a CorralError is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (!CorralError.isInstance(error)) throw error;
    return error.code;
  }
}
