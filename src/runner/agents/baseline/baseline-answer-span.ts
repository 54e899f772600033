/**
 * Picks a short answer span from the best-ranked sentences. A candidate scores for fitting the kind of answer
 * asked for (numbers for "how many", dates for "when", capitalised names for "who"/"where"), for sitting close
 * to the words the sentence shares with the question (the answer usually neighbours them), for being short,
 * and with its sentence's rank; it loses for repeating the question's own words.
 */
import { type Candidate, type CandidateShape, findCandidates } from './baseline-answer-candidates.js';
import type { AnswerKind, QuestionAnalysis } from './baseline-question-analysis.js';
import type { RankedSentence } from './baseline-sentence-ranking.js';

/** How well a candidate's shape fits each kind of question. */
const SHAPE_FIT: Record<AnswerKind, Record<CandidateShape, number>> = {
  number: { number: 3, date: 0.5, capitalised: -1, chunk: -1.5 },
  date: { date: 3, number: 0.5, capitalised: 0, chunk: -1 },
  person: { capitalised: 2.5, chunk: -0.5, number: -2, date: -2 },
  place: { capitalised: 2.5, chunk: -0.5, number: -2, date: -2 },
  name: { capitalised: 1.5, chunk: 0, number: -1, date: -1 },
  reason: { chunk: 0.5, capitalised: 0, number: -1, date: -1 },
  other: { chunk: 0.5, capitalised: 0.5, number: 0, date: 0 },
};

/** Weights picked on the dev split (qa/squad-v1.1-dev/dev.jsonl) only; scores are in arbitrary points. */
export const SPAN_WEIGHTS = {
  /** Times the sentence's score relative to the best sentence's. */
  sentenceRank: 3,
  /** Per token between the candidate and the nearest shared word (capped at maxDistance). */
  distance: 0.15,
  maxDistance: 12,
  /** Candidates before the shared words count their distance this many times (answers tend to follow them). */
  precedingFactor: 1.25,
  /** Per question word repeated inside the candidate. */
  questionWord: 1.2,
  /** SQuAD answers are short: tokens beyond idealLength cost extraLength each; chunks shorter cost shortChunk. */
  idealLength: 3,
  extraLength: 0.35,
  shortChunk: 0.4,
  /** The candidate sits right before the question's focus noun ("moist broadleaf | forest"). */
  focusNeighbour: 1,
  /** "in/at/from X" for where-questions. */
  placePreposition: 1,
  /** A four-digit year offered for a how-many question. */
  yearAsCount: 1,
  /** Right after "called"/"known as"/"means" when the question asks for a name. */
  namingCue: 1.5,
};

export interface ScoredCandidate extends Candidate {
  score: number;
}

/** The best span from the top `sentenceCount` sentences; falls back to the best sentence itself. */
export function chooseAnswerSpan(ranked: readonly RankedSentence[], analysis: QuestionAnalysis, sentenceCount = 3): string {
  const top = ranked.slice(0, sentenceCount);
  const best = top[0];
  if (best === undefined) return '';
  const questionTerms = new Set(analysis.terms);
  const focus = new Set(analysis.focus);
  let winner: ScoredCandidate | undefined;
  for (const sentence of top) {
    const relative = best.score > 0 ? sentence.score / best.score : 1;
    for (const candidate of scoreCandidates(sentence, analysis.kind, questionTerms, focus, analysis.asksForName)) {
      const score = candidate.score + SPAN_WEIGHTS.sentenceRank * relative;
      if (winner === undefined || score > winner.score) winner = { ...candidate, score };
    }
  }
  return winner?.text ?? best.text;
}

export function scoreCandidates(
  sentence: RankedSentence,
  kind: AnswerKind,
  questionTerms: ReadonlySet<string>,
  focus: ReadonlySet<string>,
  naming = false,
): ScoredCandidate[] {
  const tokens = sentence.tokens;
  const matched = tokens.flatMap((token, index) => (token.term !== null && questionTerms.has(token.term) ? [index] : []));
  return findCandidates(sentence.text, tokens).flatMap((candidate) => {
    const inside = tokens.slice(candidate.start, candidate.end).filter((token) => token.term !== null);
    const repeated = inside.filter((token) => questionTerms.has(token.term!)).length;
    // A span made only of the question's words restates the question; it cannot be the answer.
    if (inside.length > 0 && repeated === inside.length) return [];
    let score =
      SHAPE_FIT[kind][candidate.shape] -
      SPAN_WEIGHTS.distance * distanceToShared(candidate, matched) -
      SPAN_WEIGHTS.questionWord * repeated -
      lengthPenalty(candidate);
    const after = tokens[candidate.end];
    const before = tokens[candidate.start - 1];
    if (after?.term != null && focus.has(after.term)) score += SPAN_WEIGHTS.focusNeighbour;
    // Years answer "when", rarely "how many".
    if (kind === 'number' && candidate.shape === 'number' && /^(?:1[0-9]{3}|20[0-9]{2})$/.test(candidate.text)) score -= SPAN_WEIGHTS.yearAsCount;
    if (naming && before && /^(?:called|named|termed|known|as|means|meaning|or)$/i.test(before.text)) score += SPAN_WEIGHTS.namingCue;
    if (kind === 'place' && before && /^(?:in|at|from|to|near|into)$/i.test(before.text)) score += SPAN_WEIGHTS.placePreposition;
    return [{ ...candidate, score }];
  });
}

/** Tokens to the nearest word shared with the question (those inside the candidate do not count). */
function distanceToShared(candidate: Candidate, matched: readonly number[]): number {
  let nearest: number = SPAN_WEIGHTS.maxDistance;
  for (const index of matched) {
    if (index < candidate.start) nearest = Math.min(nearest, candidate.start - index);
    else if (index >= candidate.end) nearest = Math.min(nearest, SPAN_WEIGHTS.precedingFactor * (index - candidate.end + 1));
  }
  return nearest;
}

function lengthPenalty(candidate: Candidate): number {
  const length = candidate.end - candidate.start;
  const tooLong = SPAN_WEIGHTS.extraLength * Math.max(0, length - SPAN_WEIGHTS.idealLength);
  const tooShort = candidate.shape === 'chunk' ? SPAN_WEIGHTS.shortChunk * Math.max(0, SPAN_WEIGHTS.idealLength - length) : 0;
  return tooLong + tooShort;
}
