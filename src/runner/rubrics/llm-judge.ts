/**
 * An LLM-judge rubric function: asks an OpenAI-compatible chat endpoint (plain fetch, no SDK) whether the
 * rollout's answer matches a gold answer, and scores yes as 1 and no as 0. Any failure (network, HTTP status,
 * an unreadable grade) throws RUBRIC_ERR_JUDGE_FAILED, so the rollout is recorded errored and never scored 0
 * for the judge's fault.
 */
import { CorralError } from '../../core/errors.js';
import type { Example } from '../contract/environment.js';
import { goldAnswers } from './question-answer-rubric.js';
import type { RubricFunction } from './rubric.js';

export interface LlmJudgeOptions {
  /** e.g. `https://api.openai.com/v1` or a vLLM server's `/v1`; `/chat/completions` is appended. */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Metric name in results (default 'judge'). */
  name?: string;
  /** Default 1: a judge is usually what rewards; pass 0 to record it next to exact match. */
  weight?: number;
  /** Per grading request (default 60 000). */
  timeoutMs?: number;
  /** For tests: a fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

const JUDGE_INSTRUCTIONS = [
  'You grade answers to questions. You are given a question, one or more correct answers, and a response.',
  'Reply "yes" if the response gives the same answer as any correct answer (wording, extra detail or formatting may differ),',
  'and "no" if it is wrong, incomplete, hedges between several answers, or gives no answer. Reply with one word: yes or no.',
].join(' ');

export function llmJudge(options: LlmJudgeOptions): RubricFunction {
  const endpoint = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const fetchFunction = options.fetch ?? fetch;
  return {
    name: options.name ?? 'judge',
    weight: options.weight ?? 1,
    async score({ example, trajectory, abortSignal }) {
      // No answer is wrong whatever a judge says; asking would only add a way to fail.
      if (trajectory.answer === null) return 0;
      const signals = [AbortSignal.timeout(options.timeoutMs ?? 60_000), ...(abortSignal ? [abortSignal] : [])];
      const body = {
        model: options.model,
        temperature: 0,
        messages: [
          { role: 'system', content: JUDGE_INSTRUCTIONS },
          { role: 'user', content: gradingRequest(example, trajectory.answer) },
        ],
      };
      let response: Response;
      try {
        response = await fetchFunction(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
          body: JSON.stringify(body),
          signal: AbortSignal.any(signals),
        });
      } catch (error) {
        throw judgeFailure(`request to ${endpoint} failed: ${(error as Error).message}`, error);
      }
      if (!response.ok) throw judgeFailure(`${endpoint} answered HTTP ${response.status}: ${(await response.text().catch(() => '')).slice(0, 300)}`);
      const payload = (await response.json().catch(() => null)) as { choices?: { message?: { content?: unknown } }[] } | null;
      const content = payload?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw judgeFailure(`${endpoint} returned no message content`);
      return parseGrade(content);
    },
  };
}

/** yes -> 1, no -> 0; a reasoning model's <think> block is skipped. Anything else is the judge's failure. */
export function parseGrade(content: string): number {
  const visible = content.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const match = /^[\W_]*(yes|no)\b/i.exec(visible);
  if (!match) throw judgeFailure(`judge gave no yes/no grade: ${JSON.stringify(visible.slice(0, 200))}`);
  return match[1]!.toLowerCase() === 'yes' ? 1 : 0;
}

function gradingRequest(example: Example, answer: string | null): string {
  const question =
    typeof example.prompt === 'string' ? example.prompt : ([...example.prompt].reverse().find((message) => message.role === 'user')?.content ?? '');
  const golds = goldAnswers(example);
  return [
    `Question: ${question}`,
    `Correct answers: ${golds.map((gold) => JSON.stringify(gold)).join(' | ')}`,
    `Response: ${answer ?? '(no answer)'}`,
    'Is the response correct? yes or no',
  ].join('\n');
}

function judgeFailure(message: string, cause?: unknown): CorralError {
  return new CorralError('RUBRIC_ERR_JUDGE_FAILED', message, cause === undefined ? {} : { cause });
}
