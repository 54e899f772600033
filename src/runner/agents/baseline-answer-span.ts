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

export const SPAN_WEIGHTS = { sentenceRank: 3, distance: 0.15, maxDistance: 12, questionWord: 1.2, extraLength: 0.35, idealLength: 2, focusNeighbour: 1, placePreposition: 1, yearAsCount: 1, namingCue: 1.5, precedingFactor: 1.25, shortChunk: 0 };

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

export function scoreCandidates(sentence: RankedSentence, kind: AnswerKind, questionTerms: ReadonlySet<string>, focus: ReadonlySet<string>, naming = false): ScoredCandidate[] {
  const tokens = sentence.tokens;
  const matched = tokens.flatMap((token, index) => (token.term !== null && questionTerms.has(token.term) ? [index] : []));
  return findCandidates(sentence.text, tokens).flatMap((candidate) => {
    const inside = tokens.slice(candidate.start, candidate.end).filter((token) => token.term !== null);
    const repeated = inside.filter((token) => questionTerms.has(token.term!)).length;
    // A span made only of the question's words restates the question; it cannot be the answer.
    if (inside.length > 0 && repeated === inside.length) return [];
    const distance = matched.length === 0 ? SPAN_WEIGHTS.maxDistance : Math.min(SPAN_WEIGHTS.maxDistance, ...matched.map((index) => (index < candidate.start ? candidate.start - index : index >= candidate.end ? SPAN_WEIGHTS.precedingFactor * (index - candidate.end + 1) : SPAN_WEIGHTS.maxDistance)));
    const length = candidate.end - candidate.start;
    let score = SHAPE_FIT[kind][candidate.shape] - SPAN_WEIGHTS.distance * distance - SPAN_WEIGHTS.questionWord * repeated - SPAN_WEIGHTS.extraLength * Math.max(0, length - SPAN_WEIGHTS.idealLength) - (candidate.shape === 'chunk' ? SPAN_WEIGHTS.shortChunk * Math.max(0, SPAN_WEIGHTS.idealLength - length) : 0);
    const after = tokens[candidate.end];
    if (after?.term != null && focus.has(after.term)) score += SPAN_WEIGHTS.focusNeighbour;
    const before = tokens[candidate.start - 1];
    // Years answer "when", rarely "how many".
    if (kind === 'number' && candidate.shape === 'number' && /^(?:1[0-9]{3}|20[0-9]{2})$/.test(candidate.text)) score -= SPAN_WEIGHTS.yearAsCount;
    if (naming && before && /^(?:called|named|termed|known|as|means|meaning|or)$/i.test(before.text)) score += SPAN_WEIGHTS.namingCue;
    if (kind === 'place' && before && /^(?:in|at|from|to|near|into)$/i.test(before.text)) score += SPAN_WEIGHTS.placePreposition;
    return [{ ...candidate, score }];
  });
}
