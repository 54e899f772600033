/**
 * Fixture tools that ask the client something mid-call: sampling (an LLM completion) and elicitation
 * (a form for the user), including the SEP-1034 default values and the SEP-1330 enum variants. These
 * are 2025-era push requests, so they work on sessions (and stdio/WebSocket), not on sessionless
 * 2026-era requests, where the SDK refuses them.
 */
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type FixtureTool, textResult } from './fixture-tool.js';

const NO_ARGUMENTS = z.object({});

export const clientRequestFixtureTools: readonly FixtureTool[] = [
  {
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM completion for the prompt and returns what it said.',
    inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
    run: async (args, context) => {
      const result = await context.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
        maxTokens: 100,
      });
      return textResult(`LLM response: ${sampledText(result)}`);
    },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user (through the client) for a username and an email address.',
    inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    run: async (args, context) => {
      const result = await context.mcpReq.elicitInput({
        message: String(args.message),
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return textResult(`User response: ${describeElicitation(result)}`);
    },
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicits a form whose string, integer, number, enum and boolean fields all carry default values (SEP-1034).',
    inputSchema: NO_ARGUMENTS,
    run: async (_args, context) => {
      const result = await context.mcpReq.elicitInput({
        message: 'Please review your details; every field has a default',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return textResult(`Elicitation completed: ${describeElicitation(result)}`);
    },
  },
  {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicits a form with each enum variant of SEP-1330: untitled, titled and legacy titled single-select, untitled and titled multi-select.',
    inputSchema: NO_ARGUMENTS,
    run: async (_args, context) => {
      const result = await context.mcpReq.elicitInput({
        message: 'Please pick from each list',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      });
      return textResult(`Elicitation completed: ${describeElicitation(result)}`);
    },
  },
];

function sampledText(result: CreateMessageResult | { content: unknown }): string {
  // Sampling results carry one content block, or several when the client used tools.
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks
    .map((block: unknown) => (typeof block === 'object' && block !== null && 'text' in block && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

function describeElicitation(result: ElicitResult): string {
  return `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}
