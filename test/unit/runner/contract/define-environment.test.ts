import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEnvironment } from '../../../../src/runner/contract/environment.js';
import { defineTool } from '../../../../src/runner/contract/environment-tool.js';
import { toolCalled } from '../../../../src/runner/stopping/stop-predicates.js';

const base = { dataset: () => [], rubric: [{ name: 'r', weight: 1, score: () => 1 }], systemPrompt: 'p' };
const echo = defineTool({ name: 'echo', description: 'echoes', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text });

describe('defineEnvironment', () => {
  it('takes its own tools instead of toolsets, normalises stopWhen to a list and fills defaults', () => {
    const environment = defineEnvironment({ name: 'own-tools', tools: [echo], stopWhen: toolCalled('echo'), ...base });
    expect(environment.toolsets).toEqual([]);
    expect(environment.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(environment.stopWhen).toHaveLength(1);
    expect(environment.parser).toBeUndefined();
    expect(environment.maxTurns).toBe(10);
    expect(environment.limits).toEqual({ toolTimeoutMs: 60_000, rolloutTimeoutMs: 600_000 });
    expect(Object.isFrozen(environment)).toBe(true);
    // A module's default export is validated again by the loader: a defined environment passes unchanged.
    expect(defineEnvironment(environment as never).tools).toEqual(environment.tools);
  });

  it('refuses two tools of one name, a tool not made with defineTool, hooks that are not functions and unknown fields', () => {
    expect(() => defineEnvironment({ name: 'twice', tools: [echo, echo], ...base })).toThrow(/two tools are named echo/);
    expect(() => defineEnvironment({ name: 'not-a-tool', tools: [{ name: 'x' } as never], ...base })).toThrow(/defineTool/);
    expect(() => defineEnvironment({ name: 'bad-setup', setup: 'later' as never, ...base })).toThrow(/setup must be a function/);
    expect(() => defineEnvironment({ name: 'typo', toolset: ['python'], ...base } as never)).toThrow();
  });

  it("validates setupScope: 'rollout' by default, 'example' accepted, anything else refused", () => {
    expect(defineEnvironment({ name: 'default-scope', ...base }).setupScope).toBe('rollout');
    expect(defineEnvironment({ name: 'shared', setupScope: 'example', ...base }).setupScope).toBe('example');
    expect(() => defineEnvironment({ name: 'typo-scope', setupScope: 'group' as never, ...base })).toThrow(/setupScope/);
  });

  it('defineTool checks the name and the execute function', () => {
    expect(() => defineTool({ name: 'has space', description: '', inputSchema: z.object({}), execute: () => '' })).toThrow(/letters, digits/);
    expect(() => defineTool({ name: 'ok', description: '', inputSchema: z.object({}) } as never)).toThrow(/execute/);
  });
});
