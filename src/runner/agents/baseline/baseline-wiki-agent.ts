/**
 * The model-free wiki-search baseline ('baseline'): a floor to beat and a smoke test that needs no model.
 * It works only through the environment's tools, in the steps a model would take, each recorded as an
 * assistant turn: search_pages with the question; view_sections of the top page; read_section of its
 * sections in page order until the one holding the search snippet (baseline-section-scan.ts: never the whole
 * page); then it ranks the sentences read, plus the snippets of the next close-scoring pages, by overlap with
 * the question and answers with a short span (baseline-sentence-ranking.ts, baseline-answer-span.ts). With
 * three turns it reads the top pages whole (no turn for view_sections), with two it answers from the snippets.
 */
import type { Agent, AgentRunInput } from '../agent.js';
import { chooseAnswerSpan } from './baseline-answer-span.js';
import { analyseQuestion } from './baseline-question-analysis.js';
import { type Passage, rankSentences } from './baseline-sentence-ranking.js';
import { ToolSteps } from './baseline-tool-steps.js';
import { readTowardSnippet } from './baseline-section-scan.js';
import { type PageResult, searchResults, sectionText } from './baseline-wiki-results.js';

export interface BaselineWikiOptions {
  /** Most pages whose snippets are used per question, the top page's sections read (default 3). */
  maxPages?: number;
  /** A lower-ranked page's snippet is used only when its score is at least this share of the top score (default 0.5). */
  relativeScore?: number;
  /** Cap on read_section calls per question (default 60). */
  maxSectionReads?: number;
}

export class BaselineWikiAgent implements Agent {
  readonly name = 'baseline';
  readonly model = 'baseline';
  readonly environments = ['wiki-search'] as const;
  private readonly options: Required<BaselineWikiOptions>;

  constructor(options: BaselineWikiOptions = {}) {
    this.options = { maxPages: options.maxPages ?? 3, relativeScore: options.relativeScore ?? 0.5, maxSectionReads: options.maxSectionReads ?? 60 };
  }

  async run(input: AgentRunInput): Promise<void> {
    const question = questionText(input);
    const steps = new ToolSteps(input.recorder, input.tools, input.maxTurns, input.abortSignal);
    const analysis = analyseQuestion(question);
    if (steps.stepsLeft === 0) return steps.answer('');
    const [searchOutcome] = await steps.step([{ name: 'search_pages', args: { query: question } }]);
    const pages = this.pagesToRead(searchResults(searchOutcome!));
    let passages: Passage[] = pages.map((page, pageRank) => ({ text: page.snippet, pageRank, title: page.title }));
    if (pages.length > 0 && steps.stepsLeft >= 2) {
      const top = pages[0]!;
      const scan = await readTowardSnippet(steps, top, this.options.maxSectionReads);
      const read = scan.texts.map((text) => ({ text, pageRank: 0, title: top.title }));
      // The top page's snippet stays a passage only when no section read holds it.
      passages = [...read, ...(scan.located ? passages.slice(1) : passages)];
    } else if (pages.length > 0 && steps.stepsLeft === 1) passages = await readWholePages(steps, pages);
    steps.answer(chooseAnswerSpan(rankSentences(passages, analysis), analysis));
  }

  /** The top page, and the next ones only while their search score stays close to it. */
  private pagesToRead(results: PageResult[]): PageResult[] {
    const topScore = results[0]?.score;
    return results
      .slice(0, this.options.maxPages)
      .filter((result, index) => index === 0 || topScore === undefined || result.score === undefined || result.score >= this.options.relativeScore * topScore);
  }
}

async function readWholePages(steps: ToolSteps, pages: PageResult[]): Promise<Passage[]> {
  const outcomes = await steps.step(pages.map((page) => ({ name: 'read_section', args: { section_id: `${page.pageId}:full` } })));
  return outcomes.map((outcome, pageRank) => ({ text: sectionText(outcome), pageRank, title: pages[pageRank]!.title }));
}

function questionText(input: AgentRunInput): string {
  const prompt = input.example.prompt;
  if (typeof prompt === 'string') return prompt;
  const user = [...prompt].reverse().find((message) => message.role === 'user');
  return user?.content ?? '';
}
