import { describe, expect, it } from 'vitest';
import { classifyHttpFailure } from '../../../../../src/runner/agents/openai/model-error.js';

const failure = (status: number, body: string) => classifyHttpFailure(status, new Headers({ 'content-type': 'application/json' }), body);

describe('classifyHttpFailure reads every error body shape', () => {
  it('reads flat (SGLang, older vLLM) and FastAPI error bodies, as it reads {error: {message}}', () => {
    expect(failure(400, '{"object":"error","message":"too long","type":"BadRequestError","code":400}')).toMatchObject({
      status: 400,
      message: '400 too long',
      code: 'MODEL_ERR_HTTP',
    });
    expect(failure(422, '{"detail":[{"loc":["body","model"]}]}')).toMatchObject({ message: '422 [{"loc":["body","model"]}]' });
    // The context-length message classified on arrives in the flat shape from vLLM and SGLang.
    expect(failure(400, '{"object":"error","message":"This model\'s maximum context length is 4096 tokens."}')).toMatchObject({
      code: 'MODEL_ERR_CONTEXT_LENGTH',
      retryable: false,
    });
  });

  it('reads OpenAI-shaped errors (with their code) and non-JSON errors', () => {
    expect(failure(500, '{"error":{"message":"x"}}')).toMatchObject({ message: '500 x', code: 'MODEL_ERR_SERVER', retryable: true });
    expect(failure(400, '{"error":{"message":"too many tokens","code":"context_length_exceeded"}}')).toMatchObject({ code: 'MODEL_ERR_CONTEXT_LENGTH' });
    expect(failure(502, '<html>bad gateway</html>')).toMatchObject({ message: '502 <html>bad gateway</html>', code: 'MODEL_ERR_SERVER' });
    expect(failure(404, '')).toMatchObject({ message: '404 status code (no body)', code: 'MODEL_ERR_HTTP' });
  });
});
