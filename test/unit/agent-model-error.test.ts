import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyModelError, toModelError } from '../../src/runner/agents/openai/model-error.js';

const httpError = (status: number, message: string, headers: Record<string, string> = {}) => APIError.generate(status, { error: { message } }, undefined, new Headers(headers));

describe('classifyModelError', () => {
  it('retries 429, 408 and 5xx, and reads Retry-After in both spellings', () => {
    expect(classifyModelError(httpError(429, 'slow down', { 'retry-after': '2' }), false)).toMatchObject({ code: 'MODEL_ERR_RATE_LIMITED', retryable: true, status: 429, retryAfterMs: 2000 });
    expect(classifyModelError(httpError(503, 'busy', { 'retry-after-ms': '150' }), false)).toMatchObject({ code: 'MODEL_ERR_SERVER', retryable: true, status: 503, retryAfterMs: 150 });
    expect(classifyModelError(httpError(408, 'late'), false)).toMatchObject({ code: 'MODEL_ERR_SERVER', retryable: true, retryAfterMs: undefined });
  });

  it('does not retry other 4xx, and names context overflows', () => {
    expect(classifyModelError(httpError(401, 'bad key'), false)).toMatchObject({ code: 'MODEL_ERR_HTTP', retryable: false, status: 401 });
    expect(classifyModelError(httpError(400, 'The decoder prompt (length 5000) is longer than the maximum model length of 4096.'), false)).toMatchObject({ code: 'MODEL_ERR_CONTEXT_LENGTH', retryable: false });
  });

  it('treats connection failures and timeouts as retryable', () => {
    expect(classifyModelError(new APIConnectionError({ message: 'Connection error.', cause: new Error('ECONNREFUSED') }), false)).toMatchObject({ code: 'MODEL_ERR_CONNECTION', retryable: true, message: 'Connection error.: ECONNREFUSED' });
    expect(classifyModelError(new APIConnectionTimeoutError(), false)).toMatchObject({ code: 'MODEL_ERR_TIMEOUT', retryable: true });
    expect(classifyModelError(new Error('aborted by our timer'), true)).toMatchObject({ code: 'MODEL_ERR_TIMEOUT', retryable: true });
    expect(classifyModelError(new TypeError('terminated'), false)).toMatchObject({ code: 'MODEL_ERR_CONNECTION', retryable: true });
  });

  it('reports an unparsable body as a bad response', () => {
    expect(classifyModelError(new SyntaxError('Unexpected end of JSON input'), false)).toMatchObject({ code: 'MODEL_ERR_BAD_RESPONSE', retryable: false });
  });
});

describe('toModelError', () => {
  it('puts status, attempts and the endpoint in details', () => {
    const error = toModelError(classifyModelError(httpError(500, 'oops'), false), { attempts: 5, model: 'qwen', baseURL: 'http://h/v1' });
    expect(error.code).toBe('MODEL_ERR_SERVER');
    expect(error.details).toEqual({ status: 500, attempts: 5, model: 'qwen', baseURL: 'http://h/v1', requestId: null });
    expect(error.message).toBe('model qwen at http://h/v1 failed (HTTP 500) after 5 attempts: 500 oops');
  });
});
