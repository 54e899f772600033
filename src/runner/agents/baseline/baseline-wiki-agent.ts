/**
 * The model-free wiki-search baseline ('baseline'): a floor to beat and a smoke test that needs no model.
 * It works only through the environment's tools, in the steps a model would take, each recorded as an
 * assistant turn: search_pages with the question; view_sections of the top 1-3 pages; read_section of their
 * sections (all of them: paragraph-group section names say nothing about content, so sections are chosen
 * after reading, by ranking their sentences and paragraphs by overlap with the question); then it answers
 * with a short span (see baseline-sentence-ranking.ts and baseline-answer-span.ts). With fewer turns it
 * reads whole pages, or answers from the search snippets.
 */
import type { Agent, AgentRunInput } from '../agent.js';
import { chooseAnswerSpan } from './baseline-answer-span.js';
import { analyseQuestion } from './baseline-question-analysis.js';
import { type Passage, rankSentences } from './baseline-sentence-ranking.js';
import { ToolSteps } from './baseline-tool-steps.js';
import { type PageResult, searchResults, sectionEntries, sectionText } from './baseline-wiki-results.js';

export interface BaselineWikiOptions {
  /** Most pages read per question (default 3). */
  maxPages?: number;
  /** A lower-ranked page is read only when its score is at least this share of the top score (default 0.5). */
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
    if (pages.length > 0 && steps.stepsLeft >= 2) passages = await this.readSections(steps, pages);
    else if (pages.length > 0 && steps.stepsLeft === 1) passages = await readWholePages(steps, pages);
    steps.answer(chooseAnswerSpan(rankSentences(passages, analysis), analysis));
  }

  /** The top page, and the next ones only while their search score stays close to it. */
  private pagesToRead(results: PageResult[]): PageResult[] {
    const topScore = results[0]?.score;
    return results
      .slice(0, this.options.maxPages)
      .filter((result, index) => index === 0 || topScore === undefined || result.score === undefined || result.score >= this.options.relativeScore * topScore);
  }

  private async readSections(steps: ToolSteps, pages: PageResult[]): Promise<Passage[]> {
    const listings = await steps.step(pages.map((page) => ({ name: 'view_sections', args: { page_id: page.pageId } })));
    // A page whose sections cannot be listed is read whole instead.
    const reads = pages
      .flatMap((page, pageRank) => {
        const sections = sectionEntries(listings[pageRank]!);
        const ids = sections.length > 0 ? sections.map((section) => section.sectionId) : [`${page.pageId}:full`];
        return ids.map((sectionId) => ({ sectionId, pageRank, title: page.title }));
      })
      .slice(0, this.options.maxSectionReads);
    const outcomes = await steps.step(reads.map((read) => ({ name: 'read_section', args: { section_id: read.sectionId } })));
    return reads.map((read, index) => ({ text: sectionText(outcomes[index]!), pageRank: read.pageRank, title: read.title }));
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
