import { describe, expect, it } from 'vitest';
import { CorralError } from '../../../src/core/errors.js';
import { capabilityQueueName, rolloutJobId } from '../../../src/queue/queue-keys.js';
import { ROLLOUT_JOB_VERSION, type RolloutJob, decodeRolloutJob, jobCapability } from '../../../src/queue/rollout-job.js';

const job = (overrides: Partial<RolloutJob> = {}): RolloutJob => ({
  version: ROLLOUT_JOB_VERSION,
  run_id: 'run1',
  example: { id: 'q:1', prompt: 'Say a1.', answer: 'a1', info: { level: 2 } },
  rollout_index: 3,
  environment: { name: 'queue-counting', source: '/x/env.ts', args: { k: 1 }, corpus: null, max_turns: null },
  agent: {
    name: 'openai',
    model: 'm',
    base_url: 'http://127.0.0.1:9/v1',
    sampling_args: { temperature: 0.5 },
    model_timeout_s: 600,
    model_retries: 4,
    api_key: 'worker',
    endpoint_guard: null,
  },
  seed: 7,
  needs: { backend: 'any' },
  ...overrides,
});

const codeOf = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    return CorralError.isInstance(error) ? error.code : 'not a CorralError';
  }
  return 'no error';
};

describe('rollout jobs', () => {
  it('survive the JSON trip BullMQ gives them unchanged', () => {
    const original = job();
    expect(decodeRolloutJob(JSON.parse(JSON.stringify(original)))).toEqual(original);
  });

  it('refuse another version, unknown fields, a missing example id and a run id that could escape its keys', () => {
    expect(codeOf(() => decodeRolloutJob({ ...job(), version: 2 }))).toBe('QUEUE_ERR_INVALID_JOB');
    expect(codeOf(() => decodeRolloutJob({ ...job(), api_key: 'sk-secret' }))).toBe('QUEUE_ERR_INVALID_JOB');
    expect(codeOf(() => decodeRolloutJob({ ...job(), example: { prompt: 'x' } }))).toBe('QUEUE_ERR_INVALID_JOB');
    expect(codeOf(() => decodeRolloutJob({ ...job(), run_id: 'a:b' }))).toBe('QUEUE_ERR_INVALID_JOB');
    expect(codeOf(() => decodeRolloutJob(null))).toBe('QUEUE_ERR_INVALID_JOB');
  });

  it('name the version in the message when producer and worker differ', () => {
    expect(() => decodeRolloutJob({ ...job(), version: 9 })).toThrow(/version 9, this worker reads version 1/);
  });

  it('carry no API key field: the schema is strict about the agent', () => {
    expect(codeOf(() => decodeRolloutJob({ ...job(), agent: { ...job().agent, api_key: 'sk-secret' } }))).toBe('QUEUE_ERR_INVALID_JOB');
  });
});

describe('queue names and job ids', () => {
  it('route by environment name and backend need', () => {
    expect(capabilityQueueName(jobCapability(job()))).toBe('rollouts~queue-counting~any');
    expect(capabilityQueueName({ environment: 'wiki-search', backend: 'docker' })).toBe('rollouts~wiki-search~docker');
  });

  it('never contain ":" (BullMQ refuses it), and names that differ only in replaced characters stay apart', () => {
    const a = capabilityQueueName({ environment: 'my:env', backend: 'any' });
    const b = capabilityQueueName({ environment: 'my/env', backend: 'any' });
    expect(a).not.toContain(':');
    expect(a).not.toBe(b);
    expect(rolloutJobId('run1', 'q:1', 3)).not.toContain(':');
    expect(rolloutJobId('run1', 'q:1', 3)).not.toBe(rolloutJobId('run1', 'q:13', 0));
  });
});
