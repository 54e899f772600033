/** The rollout API's policy step clocks: forward only, per principal and policy, listeners on forward moves, bounded memory. */
import { describe, expect, it } from 'vitest';
import { PolicyStepClocks } from '../../../src/http/rollouts-policy-steps.js';

describe('PolicyStepClocks', () => {
  it('moves forward only, per principal and policy, and tells listeners of each forward move', () => {
    const clocks = new PolicyStepClocks();
    const heard: number[] = [];
    const unsubscribe = clocks.subscribe('token:a', 'grpo', (step) => heard.push(step));
    expect(clocks.current('token:a', 'grpo')).toBeUndefined();
    expect(clocks.advance('token:a', 'grpo', 3)).toBe(3);
    expect(clocks.advance('token:a', 'grpo', 2)).toBe(3);
    expect(clocks.advance('token:a', 'grpo', 3)).toBe(3);
    expect(clocks.advance('token:b', 'grpo', 9)).toBe(9);
    expect(clocks.advance('token:a', 'other', 9)).toBe(9);
    expect(clocks.advance('token:a', 'grpo', 5)).toBe(5);
    unsubscribe();
    clocks.advance('token:a', 'grpo', 6);
    expect(heard).toEqual([3, 5]);
    expect(clocks.current('token:a', 'grpo')).toBe(6);
  });

  it('forgets the least recently moved idle clocks beyond 4,096, never one a request listens to', () => {
    const clocks = new PolicyStepClocks();
    clocks.advance('token:a', 'listened', 1);
    clocks.subscribe('token:a', 'listened', () => undefined);
    for (let index = 0; index < 5_000; index++) clocks.advance('token:a', `made-up-${index}`, index);
    expect(clocks.current('token:a', 'listened')).toBe(1);
    expect(clocks.current('token:a', 'made-up-0')).toBeUndefined();
    expect(clocks.current('token:a', 'made-up-4999')).toBe(4_999);
  });
});
