/**
 * Candidate answer spans inside one sentence, by shape: number expressions, dates, capitalised phrases and
 * runs of content words. Spans are token ranges; the text is cut from the sentence so it keeps its spelling.
 */
import type { Token } from './baseline-text.js';

export type CandidateShape = 'number' | 'date' | 'capitalised' | 'chunk';

export interface Candidate {
  /** Token range [start, end). */
  start: number;
  end: number;
  text: string;
  shape: CandidateShape;
}

const MONTH = /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)$/;
const NUMBER_WORD =
  /^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|trillion|dozen|half|once|twice)$/i;
const SCALE = /^(?:hundred|thousand|million|billion|trillion|percent|per|cent|%)$/i;
const DIGITS = /^\p{N}[\p{N},.\-–]*(?:s|st|nd|rd|th)?$/u;
const YEAR = /^(?:1[0-9]{3}|20[0-9]{2})(?:s|[–-][0-9]{2,4})?$/;
/** Small words allowed inside a capitalised name ("Bank of America", "Leonardo da Vinci"). */
const NAME_JOINER = /^(?:of|de|da|del|della|der|di|du|la|le|van|von|the|and|for|y|al|bin|ibn|upon|on)$/;

const isNumber = (token: Token) => DIGITS.test(token.text) || NUMBER_WORD.test(token.text);
/** Capitalised and not a sentence-initial function word ("In", "The") or a month (those are dates). */
const isCapitalised = (token: Token) => /^\p{Lu}/u.test(token.text) && token.term !== null && !MONTH.test(token.text);
/** Adverbs ("newly", "usually") rarely begin or end an answer. */
const isAdverb = (token: Token | undefined) => token !== undefined && token.text.length > 4 && /ly$/i.test(token.text);

function span(tokens: readonly Token[], sentence: string, start: number, end: number, shape: CandidateShape): Candidate {
  return { start, end, text: sentence.slice(tokens[start]!.start, tokens[end - 1]!.end), shape };
}

export function findCandidates(sentence: string, tokens: readonly Token[]): Candidate[] {
  const candidates: Candidate[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    // Dates: "October 17, 1973", "17 October 1973", "October 1973", "1973", "the 1960s", "19th century".
    if (MONTH.test(token.text)) {
      let end = index + 1;
      if (tokens[end] && /^\d{1,2}$/.test(tokens[end]!.text)) end++;
      if (tokens[end]?.text === ',' && tokens[end + 1] && YEAR.test(tokens[end + 1]!.text)) end += 2;
      else if (tokens[end] && YEAR.test(tokens[end]!.text)) end++;
      const start = index > 0 && /^\d{1,2}$/.test(tokens[index - 1]!.text) ? index - 1 : index;
      if (end - start > 1) candidates.push(span(tokens, sentence, start, end, 'date'));
    }
    if (YEAR.test(token.text)) candidates.push(span(tokens, sentence, index, index + 1, 'date'));
    if (/^\d+(?:st|nd|rd|th)$/i.test(token.text) && /^(?:century|centuries|millennium)$/i.test(tokens[index + 1]?.text ?? ''))
      candidates.push(span(tokens, sentence, index, index + 2, 'date'));
    // Numbers: a run of number tokens and scale words ("2.4 million", "16,000", "40 %").
    if (isNumber(token) && !(index > 0 && isNumber(tokens[index - 1]!))) {
      let end = index + 1;
      while (tokens[end] && (isNumber(tokens[end]!) || SCALE.test(tokens[end]!.text))) end++;
      candidates.push(span(tokens, sentence, index, end, 'number'));
      const unit = tokens[end];
      if (unit && unit.term !== null && !isCapitalised(unit) && !isAdverb(unit)) candidates.push(span(tokens, sentence, index, end + 1, 'number'));
    }
  }
  // Capitalised phrases, joined over small words; a lone capital at the start of the sentence is usually just grammar.
  for (let index = 0; index < tokens.length; index++) {
    if (
      !isCapitalised(tokens[index]!) ||
      (index > 0 && (isCapitalised(tokens[index - 1]!) || (NAME_JOINER.test(tokens[index - 1]!.text) && index > 1 && isCapitalised(tokens[index - 2]!))))
    )
      continue;
    let end = index + 1;
    while (tokens[end] && (isCapitalised(tokens[end]!) || (NAME_JOINER.test(tokens[end]!.text) && tokens[end + 1] && isCapitalised(tokens[end + 1]!)))) end++;
    if (index === 0 && end === 1) continue;
    candidates.push(span(tokens, sentence, index, end, 'capitalised'));
  }
  // Runs of content words, joined over "of"/"and" ("moist broadleaf forest", "extinction of the dinosaurs").
  for (let index = 0; index < tokens.length; index++) {
    if (tokens[index]!.term === null || (index > 0 && tokens[index - 1]!.term !== null)) continue;
    let end = index + 1;
    for (;;) {
      if (tokens[end]?.term != null) end++;
      else if (tokens[end] && /^(?:of|and|the)$/i.test(tokens[end]!.text) && tokens[end + 1]?.term != null) end += 2;
      else if (tokens[end] && /^(?:of|and)$/i.test(tokens[end]!.text) && /^the$/i.test(tokens[end + 1]?.text ?? '') && tokens[end + 2]?.term != null) end += 3;
      else break;
    }
    for (let start = index; start < end; start++) {
      for (let stop = start + 1; stop <= end && stop - start <= 6; stop++) {
        if (tokens[start]!.term !== null && tokens[stop - 1]!.term !== null && !isAdverb(tokens[start]) && !isAdverb(tokens[stop - 1]))
          candidates.push(span(tokens, sentence, start, stop, 'chunk'));
      }
    }
  }
  return candidates;
}
