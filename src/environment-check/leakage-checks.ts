/**
 * leakage.*: the gold answer must not be readable where the agent looks: the example's prompt, the system prompt,
 * the tool descriptions and schemas. Matching folds case and spacing and wants the answer as a whole token run, so
 * "cat" does not match "category"; answers under 3 characters are not judged (they occur everywhere). In a
 * question-answering set an answer sometimes appears in its own question, so a few hits are a warning; half the
 * judged examples or more is an error (the dataset gives its answers away).
 */
import type { Example } from '../runner/contract/environment.js';
import type { ToolInfo } from '../runner/contract/tool-access.js';
import type { ChatMessage } from '../runner/trajectory/messages.js';
import type { ResultRecord } from '../runner/trajectory/result-record.js';
import { type CheckId, type CheckResult, failed, passed } from './check-report.js';

const MINIMUM_ANSWER_LENGTH = 3;
const ERROR_SHARE = 0.5;

const fold = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

function answerTexts(example: Example): string[] {
  const answer = example.answer;
  const list = Array.isArray(answer) ? answer : [answer];
  return list
    .filter((item) => typeof item === 'string' || typeof item === 'number')
    .map((item) => fold(String(item)))
    .filter((text) => text.length >= MINIMUM_ANSWER_LENGTH);
}

function contains(haystack: string, needle: string): boolean {
  const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(haystack);
}

function promptText(prompt: string | ChatMessage[]): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n');
}

function judge(id: CheckId, where: string, examples: readonly Example[], textOf: (example: Example) => string): CheckResult {
  const judged = examples.filter((example) => answerTexts(example).length > 0);
  const leaks = judged
    .map((example) => {
      const haystack = fold(textOf(example));
      const found = answerTexts(example).find((answer) => contains(haystack, answer));
      return found === undefined ? null : { example: example.id, answer: found.slice(0, 120) };
    })
    .filter((leak) => leak !== null);
  const evidence = { judged: judged.length, leaks: leaks.slice(0, 20), leak_count: leaks.length };
  if (judged.length === 0) return passed(id, `no example has a text answer of ${MINIMUM_ANSWER_LENGTH}+ characters to look for`, evidence);
  if (leaks.length === 0) return passed(id, `no answer appears in ${where} (${judged.length} examples)`, evidence);
  const severity = leaks.length >= ERROR_SHARE * judged.length ? 'error' : 'warning';
  return failed(id, severity, `the answer appears in ${where} for ${leaks.length} of ${judged.length} examples`, evidence);
}

export function checkLeakage(examples: readonly Example[], systemPrompt: string, tools: readonly ToolInfo[]): CheckResult[] {
  const toolText = tools.map((tool) => `${tool.name}\n${tool.description}\n${JSON.stringify(tool.inputSchema)}`).join('\n');
  return [
    judge('leakage.prompt', 'the prompt', examples, (example) => promptText(example.prompt)),
    judge('leakage.system-prompt', 'the system prompt', examples, () => systemPrompt),
    judge('leakage.tool-descriptions', 'the tool descriptions', examples, () => toolText),
  ];
}

/** Words a grader uses when it states the answer: "expected: Paris", "the correct answer is Paris", {"answer": "Paris"}. */
const ANSWER_LABEL = '(?:answer|expected|expecting|solution|gold|target|correct|should be|reference)';

/**
 * leakage.tool-results: a retrieval tool must return text that holds the answer (that is the work), so the answer
 * merely appearing in the oracle's tool results is no fault. The leak is a tool result that states the answer as the
 * answer: the gold answer within a few characters after a label (answer, expected, solution, gold, target, correct,
 * should be, reference), as a checker that echoes the expected value or a tool that returns the example's own record
 * does. Error when half the judged examples or more leak this way, warning for fewer.
 */
export function checkToolResultLeakage(examples: readonly Example[], oracleRecords: readonly ResultRecord[]): CheckResult {
  const byId = new Map(examples.map((example) => [example.id, example]));
  const judged = oracleRecords.filter((record) => {
    const example = byId.get(record.example_id);
    return example !== undefined && answerTexts(example).length > 0 && record.completion.some((message) => message.role === 'tool');
  });
  const leaks = judged
    .map((record) => {
      const results = record.completion.filter((message) => message.role === 'tool').map((message) => fold(String(message.content)));
      for (const answer of answerTexts(byId.get(record.example_id)!)) {
        const escaped = answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const labelled = new RegExp(`${ANSWER_LABEL}[^\\p{L}\\p{N}]{0,3}(?:is|was|=|:)?[^\\p{L}\\p{N}]{0,4}${escaped}($|[^\\p{L}\\p{N}])`, 'u');
        const hit = results.findIndex((text) => labelled.test(text));
        if (hit >= 0) return { example: record.example_id, answer: answer.slice(0, 120), tool_result: hit };
      }
      return null;
    })
    .filter((leak) => leak !== null);
  const evidence = { judged: judged.length, leaks: leaks.slice(0, 20), leak_count: leaks.length };
  if (judged.length === 0) return passed('leakage.tool-results', 'the oracle called no tool on an example with a text answer to look for', evidence);
  if (leaks.length === 0) return passed('leakage.tool-results', `no tool result states the answer as the answer (${judged.length} examples)`, evidence);
  const severity = leaks.length >= ERROR_SHARE * judged.length ? 'error' : 'warning';
  return failed(
    'leakage.tool-results',
    severity,
    `a tool result states the answer (after "answer", "expected", ...) for ${leaks.length} of ${judged.length} examples`,
    evidence,
  );
}
