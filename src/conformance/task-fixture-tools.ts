/**
 * Fixture tools of the conformance suite's tasks-extension scenarios (SEP-2663, tasks-*): one synchronous tool
 * (greet) and task-supporting ones that sleep, fail as a tool, fail as a protocol, ask the client for input
 * during the task (one request, or two at once for partial answers), and one that gathers input through a
 * multi-round-trip exchange before it becomes a task. Names, arguments and texts follow the scenario descriptions.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type InputRequest, ProtocolError, ProtocolErrorCode, inputRequired } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { tasksRequiredError } from '../mcp/task-extension.js';
import type { TaskControl } from '../mcp/task-store.js';
import { type FixtureTaskWork, type FixtureTool, textResult } from './fixture-tool.js';
import { acceptedField } from './input-required-fixture-tools.js';

const NO_ARGUMENTS = z.object({});

/** A task fixture; without the extension an optional one runs inline, where it cannot ask the client anything. */
function taskFixture(tool: Omit<FixtureTool, 'run' | 'task'> & FixtureTaskWork): FixtureTool {
  const { support, before, work, ...described } = tool;
  const inline: TaskControl = {
    signal: new AbortController().signal,
    requestInput: () => Promise.reject(tasksRequiredError()),
  };
  return {
    ...described,
    task: { support, work, ...(before ? { before } : {}) },
    run: async (args, context) => {
      if (support === 'required') throw tasksRequiredError();
      return work(args, { ...inline, signal: context.mcpReq.signal }, context);
    },
  };
}

const confirmRequest = (message: string): InputRequest =>
  inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } });

/** An accepted elicitation answer's field, read from a tasks/update response. */
function answered(response: unknown, field: string): unknown {
  const value = response as { action?: unknown; content?: Record<string, unknown> } | undefined;
  return value?.action === 'accept' && typeof value.content === 'object' && value.content !== null ? value.content[field] : undefined;
}

export const taskFixtureTools: readonly FixtureTool[] = [
  {
    name: 'greet',
    description: 'Synchronous: returns Hello, {name}! and never becomes a task.',
    inputSchema: z.object({ name: z.string() }),
    run: async (args) => textResult(`Hello, ${String(args.name)}!`),
  },
  taskFixture({
    name: 'slow_compute',
    description: 'Task-supporting: sleeps `seconds` seconds, then reports it; tasks/cancel while it sleeps ends it cancelled.',
    inputSchema: z.object({ seconds: z.number().min(0).max(600), label: z.string().max(200).optional() }),
    support: 'optional',
    work: async (args, control) => {
      const seconds = Number(args.seconds);
      if (seconds > 0) await sleep(seconds * 1_000, undefined, { signal: control.signal });
      const label = typeof args.label === 'string' && args.label !== '' ? ` ${args.label}` : '';
      return textResult(`slow_compute${label} finished after ${seconds} s`);
    },
  }),
  taskFixture({
    name: 'failing_job',
    description: 'Task-required: after about a second returns a tool execution error (isError), so the task completes.',
    inputSchema: NO_ARGUMENTS,
    support: 'required',
    work: async (_args, control) => {
      await sleep(1_000, undefined, { signal: control.signal });
      return { content: [{ type: 'text', text: 'failing_job: the job failed (simulated tool error)' }], isError: true };
    },
  }),
  taskFixture({
    name: 'protocol_error_job',
    description: 'Task-supporting: fails with a JSON-RPC internal error, so the task fails.',
    inputSchema: NO_ARGUMENTS,
    support: 'optional',
    work: async (_args, control) => {
      await sleep(200, undefined, { signal: control.signal });
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'protocol_error_job: simulated internal failure');
    },
  }),
  taskFixture({
    name: 'confirm_delete',
    description: 'Task-supporting: asks the client (input_required on the task) to confirm deleting `filename`.',
    inputSchema: z.object({ filename: z.string().max(500) }),
    support: 'optional',
    work: async (args, control) => {
      const answers = await control.requestInput({ confirm_delete: confirmRequest(`Delete ${String(args.filename)}?`) });
      return textResult(answered(answers.confirm_delete, 'confirm') === true ? `Deleted ${String(args.filename)}` : `Kept ${String(args.filename)}`);
    },
  }),
  taskFixture({
    name: 'multi_input',
    description: 'Task-supporting: asks two questions at once, so the client can answer them one tasks/update at a time.',
    inputSchema: NO_ARGUMENTS,
    support: 'optional',
    work: async (_args, control) => {
      const answers = await control.requestInput({
        first_name: inputRequired.elicit({
          message: 'First input: your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        }),
        second_confirm: confirmRequest('Second input: proceed?'),
      });
      return textResult(`multi_input: name=${String(answered(answers.first_name, 'name'))}; confirm=${String(answered(answers.second_confirm, 'confirm'))}`);
    },
  }),
  taskFixture({
    name: 'test_tool_with_task',
    description: 'Task-required: asks for user_name by a multi-round-trip result first, then becomes a task that greets that name.',
    inputSchema: NO_ARGUMENTS,
    support: 'required',
    before: async (_args, context) => {
      if (acceptedField(context, 'user_name', 'name') !== undefined) return undefined;
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
      });
    },
    work: async (_args, control, context) => {
      const name = String(acceptedField(context, 'user_name', 'name'));
      await sleep(200, undefined, { signal: control.signal });
      return textResult(`Hello, ${name}! (answered by a task)`);
    },
  }),
];
