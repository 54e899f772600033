/**
 * `corral rescore`, `corral replay` and `corral export pairs`, each the real command run in this process (commander,
 * the run driver, the results files), on one wiki-search run `corral eval` made in beforeAll the same way (tiny
 * fixture corpus, wiki tools in process, a scripted model on port 0: search_pages, view_sections, then an answer; one
 * rollout fails with HTTP 400 and is errored). In process, not as child processes: each start of the CLI costs
 * seconds of CI, and nothing here needs a sandbox.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ChatCompletionRequestBody, type ModelReply, startScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { ResultRecord } from '../../src/runner/trajectory/result-record.js';
import type { PreferencePair } from '../../src/export/pairs-export.js';
import { buildSamples } from '../../src/runner/samples/build-samples.js';
import { registerEvalCommand } from '../../src/cli/commands/eval.js';
import { registerExportCommand } from '../../src/cli/commands/export.js';
import { registerReplayCommand } from '../../src/cli/commands/replay.js';
import { registerRescoreCommand } from '../../src/cli/commands/rescore.js';
import { ROOT, RUNNER_FIXTURES, readResults } from '../e2e/runner-cli.js';

const COMMANDS = [registerEvalCommand, registerRescoreCommand, registerReplayCommand, registerExportCommand];

/** Runs `corral <args>` in this process: its exit status (a CorralError is 2, as main() makes it), stdout and stderr. */
async function runCorral(args: string[], environment: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command('corral').exitOverride();
  for (const register of COMMANDS) register(program);
  const output = { stdout: '', stderr: '' };
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((output.stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((output.stderr += String(chunk)), true));
  for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(['node', 'corral', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    code = 2;
    output.stderr += `corral: ${(error as { code?: string }).code}: ${(error as Error).message}\n`;
  } finally {
    process.exitCode = undefined;
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  }
  return { code, ...output };
}

const PAGES = join(RUNNER_FIXTURES, 'tiny-pages.jsonl');
const QUESTIONS = join(RUNNER_FIXTURES, 'tiny-questions.jsonl');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'rescore');
const scratch = mkdtempSync(join(tmpdir(), 'corral-rescore-'));
const source = join(scratch, 'source');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The final answer per question: q2's holds the gold answer inside a sentence (exact match 0, "contains" 1). */
const ANSWERS: Record<string, string> = {
  'Who opened the Marrow Valley Railway?': 'Harriet Lowell',
  'How many stations does the Marrow Valley Railway have?': 'The railway has seven stations.',
  'In what year did the Copper Kettle Prize get established?': '1962',
  'Which insects pollinate the glass orchid?': 'no idea',
  'Who is the mayor of Port Ambry?': 'Daniel R. Whitcombe',
};
const questionOf = (body: ChatCompletionRequestBody) => String(body.messages.find((message) => message.role === 'user')?.content ?? '');
const toolTurns = (body: ChatCompletionRequestBody) => body.messages.filter((message) => message.role === 'tool').length;

/** Turn 1 searches, turn 2 lists the sections of `page`, turn 3 answers. */
function searchingModel(page: (question: string) => string, answer: (question: string, seed: number, lastToolResult: string) => string) {
  return (body: ChatCompletionRequestBody): ModelReply => {
    const question = questionOf(body);
    const seed = Number(body['seed']);
    if (question.startsWith('Who is the mayor') && seed === 1) return { kind: 'http-error', status: 400, message: 'scripted refusal' };
    const done = toolTurns(body);
    // Ids from the question, seed and turn, so a replay that repeats a call repeats its id too.
    const id = `call_${Object.keys(ANSWERS).indexOf(question)}_${seed}_${done}`;
    if (done === 0) return { kind: 'tool-calls', toolCalls: [{ id, name: 'search_pages', arguments: { query: question } }] };
    if (done === 1) return { kind: 'tool-calls', toolCalls: [{ id, name: 'view_sections', arguments: { page_id: page(question) } }] };
    return { kind: 'text', content: answer(question, seed, String(body.messages.at(-1)?.content ?? '')) };
  };
}
const ORIGINAL_PAGE = () => 'marrow_valley_railway';
const ORIGINAL = searchingModel(ORIGINAL_PAGE, (question) => ANSWERS[question]!);

interface RunMetadata {
  status: string;
  lineage: Record<string, unknown>;
  env_source: Record<string, unknown> & { sha256?: string };
  score_spread: { metrics: Record<string, unknown> };
}
const byKey = (records: readonly ResultRecord[]) => new Map(records.map((record) => [`${record.example_id}#${record.rollout_index}`, record]));

describe('corral rescore, replay and export pairs', () => {
  let sourceRecords: ResultRecord[];
  beforeAll(async () => {
    const model = await startScriptedModelServer(ORIGINAL, { template: 'keeps-history' });
    try {
      const result = await runCorral([
        'eval',
        'wiki-search',
        ...['--corpus', PAGES, '--questions', QUESTIONS, '--agent', 'openai', '--model', 'scripted', '--base-url', model.baseURL, '--api-key', 'k'],
        ...[
          '--seed',
          '0',
          '--return-tokens',
          '--model-retries',
          '0',
          '--backend',
          'process',
          '-r',
          '2',
          '-c',
          '4',
          '--out',
          source,
          '--no-progress',
          '--no-preflight',
        ],
      ]);
      expect(result.code, result.stderr).toBe(1);
    } finally {
      await model.close();
    }
    sourceRecords = readResults(source);
    expect(sourceRecords).toHaveLength(10);
    expect(sourceRecords.filter((record) => record.error !== null).map((record) => `${record.example_id}#${record.rollout_index}`)).toEqual(['q5#1']);
  }, 60_000);

  it('re-scoring with a changed rubric changes rewards only where the rubric changed; errored records stay errored', async () => {
    const out = join(scratch, 'lenient');
    const result = await runCorral(['rescore', source, '--env', join(FIXTURES, 'lenient-wiki-search.ts'), '--out', out, '--no-progress']);
    expect(result.code, result.stderr).toBe(1);
    const rescored = byKey(readResults(out));
    expect(rescored.size).toBe(10);
    for (const original of sourceRecords) {
      const key = `${original.example_id}#${original.rollout_index}`;
      const record = rescored.get(key)!;
      expect(record.lineage).toEqual({ kind: 'rescore', source_run: source, source_record: key });
      expect(record.completion).toEqual(original.completion);
      if (original.error !== null) {
        expect(record.reward).toBeNull();
        expect(record.error).toEqual(original.error);
        continue;
      }
      expect(record.reward).toBe(original.example_id === 'q2' ? 1 : original.reward);
      expect(record.f1).toBe(original.f1);
    }
    expect(sourceRecords.filter((record) => record.example_id === 'q2').map((record) => record.reward)).toEqual([0, 0]);
    const metadata = JSON.parse(readFileSync(join(out, 'metadata.json'), 'utf8')) as RunMetadata;
    expect(metadata.lineage).toMatchObject({ kind: 'rescore', source_run: source, source_env: 'wiki-search', env: join(FIXTURES, 'lenient-wiki-search.ts') });
    expect(metadata.env_source).toMatchObject({ kind: 'module', path: join(FIXTURES, 'lenient-wiki-search.ts') });
    expect(metadata.env_source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(metadata.status).toBe('complete');
  }, 30_000);

  it('--repeats 5 with a judge whose answers vary reports the spread per metric', async () => {
    let sentenceGrades = 0;
    const judge = await startScriptedModelServer((body) => {
      const request = String(body.messages.at(-1)?.content ?? '');
      const response = /Response: (.*)/.exec(request)?.[1] ?? '';
      // The sentence answer gets yes, no, yes, no, ...; every other answer a steady grade.
      if (response.includes('seven stations')) return { kind: 'text', content: sentenceGrades++ % 2 === 0 ? 'yes' : 'no' };
      return { kind: 'text', content: response === 'no idea' ? 'no' : 'yes' };
    });
    const out = join(scratch, 'judged');
    try {
      const result = await runCorral(
        ['rescore', source, '--env', join(FIXTURES, 'judged-wiki-search.ts'), '--repeats', '5', '-c', '1', '--out', out, '--no-progress'],
        { RESCORE_JUDGE_URL: judge.baseURL },
      );
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('score spread over 5 scorings per trajectory:');
      expect(result.stdout).toContain('judge: 2/9 trajectories disagreed, mean std 0.108866, max std 0.489898, max range 1');
      expect(result.stdout).toContain('exact_match: 0/9 trajectories disagreed');
    } finally {
      await judge.close();
    }
    const records = byKey(readResults(out));
    // Five grades in a row from an alternating judge (which one comes first depends on the dry scoring's record).
    for (const key of ['q2#0', 'q2#1']) {
      const judged = (records.get(key)!['rescore'] as { metrics: { judge: number[] } }).metrics.judge;
      expect([[1, 0, 1, 0, 1].join(), [0, 1, 0, 1, 0].join()]).toContain(judged.join());
      expect(records.get(key)!.reward).toBeCloseTo(judged.reduce((sum, value) => sum + value, 0) / 5);
    }
    expect(records.get('q1#0')!.reward).toBe(1);
    expect(records.get('q5#1')!.error?.code).toBe('MODEL_ERR_HTTP');
    const metadata = JSON.parse(readFileSync(join(out, 'metadata.json'), 'utf8')) as RunMetadata;
    expect(metadata.score_spread.metrics.judge).toEqual({ trajectories: 9, disagreed: 2, mean_std: 0.108866, max_std: 0.489898, max_range: 1 });
  }, 30_000);

  it('refuses rubrics that read the sandbox, declared (python-code tests) or found by the dry scoring, before writing a run', async () => {
    const undeclared = join(scratch, 'undeclared');
    const found = await runCorral(['rescore', source, '--env', join(FIXTURES, 'sandbox-reading-wiki-search.ts'), '--out', undeclared, '--no-progress']);
    expect(found.code).toBe(2);
    expect(found.stderr).toContain('RESCORE_ERR_NEEDS_SANDBOX');
    expect(found.stderr).toContain("read the rollout's tools (a tool call)");
    expect(existsSync(undeclared)).toBe(false);
    const declared = join(scratch, 'declared');
    const refused = await runCorral(['rescore', source, '--env', 'python-code', '--out', declared, '--no-progress']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('RESCORE_ERR_NEEDS_SANDBOX');
    expect(refused.stderr).toContain('tests_pass reads the rollout');
    expect(existsSync(declared)).toBe(false);
  }, 30_000);

  const replay = async (name: string, script: ReturnType<typeof searchingModel>, tools = 'recorded') => {
    const model = await startScriptedModelServer(script, { template: 'keeps-history' });
    const out = join(scratch, name);
    try {
      const result = await runCorral([
        'replay',
        source,
        ...['--from-turn', '2', '--tools', tools, '--model', 'scripted', '--base-url', model.baseURL, '--api-key', 'k', '--seed', '0'],
        ...['--return-tokens', '--model-retries', '0', '--out', out, '--no-progress'],
      ]);
      // The errored source record is copied as it is: still errored.
      expect(result.code, result.stderr).toBe(1);
    } finally {
      await model.close();
    }
    return byKey(readResults(out));
  };

  it('replay from turn 2 with recorded tools reproduces each trajectory when the agent repeats its calls', async () => {
    const replayed = await replay('repeat', ORIGINAL);
    expect(replayed.size).toBe(10);
    expect(replayed.get('q5#1')).toMatchObject({ reward: null, error: { code: 'MODEL_ERR_HTTP' }, lineage: { copied: true } });
    replayed.delete('q5#1');
    for (const [key, record] of replayed) {
      const original = byKey(sourceRecords).get(key)!;
      expect(record.prompt).toEqual(original.prompt);
      expect(original.tokens).toHaveLength(3);
      expect(record.tokens).toEqual(original.tokens);
      // Its training sample starts at turn 2: turn 1 (the source policy's) is prompt, never trained on.
      expect(buildSamples(record).samples[0]!.prompt_ids).toEqual(original.tokens![1]!.prompt_token_ids);
      expect(record.timing.tool_calls.map(({ callId, name, turn, isError }) => [callId, name, turn, isError])).toEqual(
        original.timing.tool_calls.map(({ callId, name, turn, isError }) => [callId, name, turn, isError]),
      );
      expect(record.completion).toEqual(original.completion);
      expect([record.turns, record.reward, record.final_answer, record.metrics]).toEqual([
        original.turns,
        original.reward,
        original.final_answer,
        original.metrics,
      ]);
      expect(record.lineage).toEqual({
        kind: 'replay',
        source_run: source,
        source_record: key,
        from_turn: 2,
        replayed_turns: [1],
        tools: 'recorded',
        recorded_tool_mismatches: 0,
      });
    }
  }, 30_000);

  it('a replay diverges where the agent chooses differently: the other call gets an error result the record shows', async () => {
    const diverging = searchingModel(
      (question) => (question.startsWith('Who opened') ? 'copper_kettle_prize' : ORIGINAL_PAGE()),
      (question, _seed, lastToolResult) => (lastToolResult.startsWith('REPLAY_ERR_TOOL_MISMATCH') ? 'unsure' : ANSWERS[question]!),
    );
    const replayed = await replay('diverge', diverging);
    replayed.delete('q5#1');
    for (const [key, record] of replayed) {
      const original = byKey(sourceRecords).get(key)!;
      // Turn 1 (the search and its recorded result) is the source's in every record.
      expect(record.completion.slice(0, 2)).toEqual(original.completion.slice(0, 2));
      if (record.example_id !== 'q1') {
        expect(record.completion).toEqual(original.completion);
        continue;
      }
      expect(record.completion[2]).toMatchObject({
        role: 'assistant',
        tool_calls: [{ function: { name: 'view_sections', arguments: '{"page_id":"copper_kettle_prize"}' } }],
      });
      expect(record.completion[3]).toMatchObject({ role: 'tool', content: expect.stringContaining('REPLAY_ERR_TOOL_MISMATCH') });
      expect(String((record.completion[3] as { content: string }).content)).toContain('view_sections {"page_id":"marrow_valley_railway"}');
      expect(record.final_answer).toBe('unsure');
      expect([original.reward, record.reward]).toEqual([1, 0]);
      expect(record.lineage?.recorded_tool_mismatches).toBe(1);
    }
  }, 30_000);

  it('replay with live tools re-runs the prefix in fresh tools and says it reproduced', async () => {
    const replayed = await replay('live', ORIGINAL, 'live');
    for (const [key, record] of replayed) {
      if (key === 'q5#1') continue;
      expect(record.completion).toEqual(byKey(sourceRecords).get(key)!.completion);
      expect(record.lineage).toMatchObject({ tools: 'live', prefix_reproduced: true });
    }
  });

  it('export pairs: each diverging continuation against the trajectory it continued, the higher reward chosen', async () => {
    const out = join(scratch, 'pairs.jsonl');
    const result = await runCorral(['export', 'pairs', source, join(scratch, 'diverge'), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `wrote 2 pairs from 9 replayed trajectories (left out: equal rewards 7, errored 0, no source record 0; copied whole 1) to ${out}`,
    );
    const pairs = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as PreferencePair);
    expect(pairs.map((pair) => pair.chosen_record.key).sort()).toEqual(['q1#0', 'q1#1']);
    for (const pair of pairs) {
      const original = byKey(sourceRecords).get(pair.chosen_record.key)!;
      expect(pair).toMatchObject({ from_turn: 2, chosen_record: { run: 'original', reward: 1 }, rejected_record: { run: 'replay', reward: 0 } });
      // The prompt is the record's prompt and turn 1; chosen and rejected are the continuations from turn 2.
      expect(pair.prompt).toEqual([...original.prompt, ...original.completion.slice(0, 2)]);
      expect(pair.chosen).toEqual(original.completion.slice(2));
      expect(pair.rejected.at(-1)).toEqual({ role: 'assistant', content: 'unsure' });
    }
    // A re-scored replay keeps the turns its source copied (samples never train on them).
    const rescored = join(scratch, 'diverge-rescored');
    expect((await runCorral(['rescore', join(scratch, 'diverge'), '--out', rescored, '--no-progress'])).code).toBe(1);
    expect(byKey(readResults(rescored)).get('q1#0')!.lineage).toMatchObject({ kind: 'rescore', replayed_turns: [1] });
    const notReplayed = await runCorral(['export', 'pairs', source, source]);
    expect(notReplayed.code).toBe(2);
    expect(notReplayed.stderr).toContain('is not a replayed run');
  });

  it('live tools say when the prefix did not reproduce; a turn past every trajectory and a folder without a run are refused', async () => {
    // A copy of the source whose recorded search result for q3#0 was edited: re-running the search gives the real one.
    const edited = join(scratch, 'edited');
    mkdirSync(edited);
    const records = sourceRecords.map((record) =>
      record.example_id === 'q3' && record.rollout_index === 0
        ? { ...record, completion: record.completion.map((message) => (message.role === 'tool' ? { ...message, content: 'edited' } : message)) }
        : record,
    );
    writeFileSync(join(edited, 'results.jsonl'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    writeFileSync(join(edited, 'metadata.json'), readFileSync(join(source, 'metadata.json')));
    const model = await startScriptedModelServer(ORIGINAL, { template: 'keeps-history' });
    try {
      const live = join(scratch, 'edited-live');
      const result = await runCorral([
        'replay',
        edited,
        '--from-turn',
        '2',
        '--tools',
        'live',
        '--model',
        'm',
        '--base-url',
        model.baseURL,
        '--out',
        live,
        '--no-progress',
      ]);
      expect(result.code, result.stderr).toBe(1);
      const replayed = byKey(readResults(live));
      expect(replayed.get('q3#0')!.lineage?.prefix_reproduced).toBe(false);
      expect(replayed.get('q3#1')!.lineage?.prefix_reproduced).toBe(true);
      const pastEnd = await runCorral(['replay', source, '--from-turn', '4', '--model', 'm', '--base-url', model.baseURL, '--out', join(scratch, 'past')]);
      expect(pastEnd.code).toBe(2);
      expect(pastEnd.stderr).toContain('REPLAY_ERR_BAD_TURN');
      expect(existsSync(join(scratch, 'past'))).toBe(false);
    } finally {
      await model.close();
    }
    // A terminal run cannot be replayed; rescore verifies it again, and refuses one whose scored trials kept no final
    // file system (a run made before trials kept it, or one over the size cap), naming each trial, before anything runs.
    const terminal = join(scratch, 'terminal-run');
    mkdirSync(terminal);
    const trials = readResults(source)
      .slice(0, 2)
      .map((record, index) => ({
        ...record,
        task: 'terminal',
        error: null,
        info: {
          trial_name: `task-${index}__old`,
          verifier_phase: { exit_code: 0, timed_out: false },
          ...(index === 1 ? { final_file_system: { path: null, image: 'corral-task/x:1', changes: 9, bytes: 0, reason: 'too large' } } : {}),
        },
      }));
    writeFileSync(join(terminal, 'results.jsonl'), trials.map((record) => `${JSON.stringify(record)}\n`).join(''));
    writeFileSync(
      join(terminal, 'metadata.json'),
      JSON.stringify({ env: 'terminal', env_source: { kind: 'task-folder', path: '/tasks' }, terminal: { tasks: '/tasks' } }),
    );
    const replayRefused = await runCorral(['replay', terminal, '--from-turn', '2', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(replayRefused.code).toBe(2);
    expect(replayRefused.stderr).toMatch(/RESCORE_ERR_NEEDS_SANDBOX: .* is a terminal run: its rewards come from each task's verifier/);
    const rescoreRefused = await runCorral(['rescore', terminal, '--out', join(scratch, 'terminal-rescore')]);
    expect(rescoreRefused.code).toBe(2);
    expect(rescoreRefused.stderr).toMatch(/RESCORE_ERR_NO_FILE_SYSTEM: 2 trial\(s\) of .* kept no final file system/);
    expect(rescoreRefused.stderr).toContain('task-0__old');
    expect(rescoreRefused.stderr).toContain('task-1__old');
    expect(rescoreRefused.stderr).toContain('it was not kept: too large');
    expect(existsSync(join(scratch, 'terminal-rescore'))).toBe(false);
    const notARun = await runCorral(['rescore', join(scratch, 'nothing-here')]);
    expect(notARun.code).toBe(2);
    expect(notARun.stderr).toContain('RESCORE_ERR_RUN_NOT_FOUND');
  });
});
