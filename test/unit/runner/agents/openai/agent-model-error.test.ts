import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { classifyHttpFailure, classifyModelError, toModelError } from '../../../../../src/runner/agents/openai/model-error.js';

const httpFailure = (status: number, message: string, headers: Record<string, string> = {}) =>
  classifyHttpFailure(status, new Headers(headers), JSON.stringify({ error: { message } }));
const socketError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('classifyHttpFailure and classifyModelError', () => {
  it('retries 429, 408 and 5xx, and reads Retry-After in both spellings', () => {
    expect(httpFailure(429, 'slow down', { 'retry-after': '2' })).toMatchObject({
      code: 'MODEL_ERR_RATE_LIMITED',
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    });
    expect(httpFailure(503, 'busy', { 'retry-after-ms': '150' })).toMatchObject({ code: 'MODEL_ERR_SERVER', retryable: true, status: 503, retryAfterMs: 150 });
    expect(httpFailure(408, 'late')).toMatchObject({ code: 'MODEL_ERR_SERVER', retryable: true, retryAfterMs: undefined });
  });

  it('does not retry other 4xx, and names context overflows', () => {
    expect(httpFailure(401, 'bad key')).toMatchObject({ code: 'MODEL_ERR_HTTP', retryable: false, status: 401 });
    expect(httpFailure(400, 'The decoder prompt (length 5000) is longer than the maximum model length of 4096.')).toMatchObject({
      code: 'MODEL_ERR_CONTEXT_LENGTH',
      retryable: false,
    });
  });

  it('treats connection failures and timeouts as retryable', () => {
    expect(classifyModelError(socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), false)).toMatchObject({
      code: 'MODEL_ERR_CONNECTION',
      retryable: true,
      message: 'connection to the model endpoint failed: connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(classifyModelError(new errors.ConnectTimeoutError(), false)).toMatchObject({ code: 'MODEL_ERR_TIMEOUT', retryable: true });
    expect(classifyModelError(new errors.SocketError('other side closed'), false)).toMatchObject({ code: 'MODEL_ERR_CONNECTION', retryable: true });
    expect(classifyModelError(new Error('aborted by our timer'), true)).toMatchObject({ code: 'MODEL_ERR_TIMEOUT', retryable: true });
    expect(classifyModelError(new TypeError('terminated'), false)).toMatchObject({ code: 'MODEL_ERR_CONNECTION', retryable: true });
  });

  it('reports an unparsable body as a bad response', () => {
    expect(classifyModelError(new SyntaxError('Unexpected end of JSON input'), false)).toMatchObject({ code: 'MODEL_ERR_BAD_RESPONSE', retryable: false });
  });
});

describe('toModelError', () => {
  it('puts status, attempts and the endpoint in details', () => {
    const error = toModelError(httpFailure(500, 'oops'), { attempts: 5, model: 'qwen', baseURL: 'http://h/v1' });
    expect(error.code).toBe('MODEL_ERR_SERVER');
    expect(error.details).toEqual({ status: 500, attempts: 5, model: 'qwen', baseURL: 'http://h/v1', requestId: null });
    expect(error.message).toBe('model qwen at http://h/v1 failed (HTTP 500) after 5 attempts: 500 oops');
  });
});
