import { describe, expect, it } from 'vitest';
import { nestedErrorFetch } from '../../src/runner/agents/openai/nested-error-fetch.js';

const answering = (status: number, body: string) => nestedErrorFetch(async () => new Response(body, { status, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }));

describe('nestedErrorFetch', () => {
  it('rewraps flat and FastAPI error bodies as {error: {message}}', async () => {
    const flat = await answering(400, '{"object":"error","message":"too long","type":"BadRequestError","code":400}')('http://x');
    expect([flat.status, await flat.json()]).toEqual([400, { error: { object: 'error', message: 'too long', type: 'BadRequestError', code: 400 } }]);
    const detail = await answering(422, '{"detail":[{"loc":["body","model"]}]}')('http://x');
    expect(await detail.json()).toEqual({ error: { detail: [{ loc: ['body', 'model'] }], message: '[{"loc":["body","model"]}]' } });
  });

  it('leaves OpenAI-shaped errors, non-JSON errors and successes alone', async () => {
    expect(await (await answering(500, '{"error":{"message":"x"}}')('http://x')).text()).toBe('{"error":{"message":"x"}}');
    expect(await (await answering(502, '<html>bad gateway</html>')('http://x')).text()).toBe('<html>bad gateway</html>');
    expect(await (await answering(200, '{"message":"fine"}')('http://x')).text()).toBe('{"message":"fine"}');
  });
});
