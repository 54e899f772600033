/**
 * What kind of answer a question asks for, read from its wh-phrase: general English patterns (how many ->
 * a number, when -> a date, who -> a name, where -> a place), plus the question's content terms and its
 * focus word (the noun after "what"/"which", e.g. "kind" in "what kind of forest").
 */
import { stemOf } from '../../../text/terms.js';
import { contentTerms } from './baseline-text.js';

export type AnswerKind = 'number' | 'date' | 'person' | 'place' | 'name' | 'reason' | 'other';

export interface QuestionAnalysis {
  kind: AnswerKind;
  /** Stemmed content terms, each once. */
  terms: string[];
  /** Stemmed nouns right after what/which (may be empty). */
  focus: string[];
  /** The question asks what something is called ("called", "named", "known as", "mean"). */
  asksForName: boolean;
}

const NUMBER_NOUNS =
  'percentage|percent|proportion|number|amount|fraction|population|temperature|size|length|distance|height|weight|speed|rate|age|price|cost|sum|total|ratio|quantity|score|count';
const DATE_NOUNS = 'year|years|decade|century|centuries|date|day|month|era|period of time|time';
const PERSON_NOUNS =
  'person|people|man|woman|men|women|king|queen|president|leader|emperor|scientist|author|writer|artist|player|coach|founder|inventor|architect|pope|general|ruler|duke|chancellor|minister|mayor|director|actor|singer|composer|philosopher|professor|engineer|physician|explorer|poet|saint|bishop|monarch|prince|princess|official|member';
const PLACE_NOUNS =
  'country|countries|city|cities|state|region|continent|place|town|location|area|river|island|province|county|nation|village|territory|ocean|sea|mountain|district|capital|neighborhood|neighbourhood|street|building|venue|stadium|site';
const NAME_NOUNS =
  'name|company|organization|organisation|team|group|network|university|school|institution|party|church|program|programme|show|series|station|channel|book|film|album|song|newspaper|journal|magazine|award|prize|language|species|ship|brand|event|war|battle|treaty|act|law';

function wh(nouns: string): RegExp {
  return new RegExp(`\\b(?:what|which)\\s+(?:\\w+\\s+){0,2}?(?:${nouns})\\b`);
}

export function answerKind(question: string): AnswerKind {
  const q = question.toLowerCase();
  if (/\bhow\s+(?:many|much|long|old|far|large|big|tall|high|often|deep|wide|heavy|fast)\b/.test(q) || wh(NUMBER_NOUNS).test(q)) {
    return wh(DATE_NOUNS).test(q) && !/\bhow\s+(?:many|long)\b/.test(q) ? 'date' : 'number';
  }
  if (/^\s*when\b|[,;]\s*when\b|\bwhen\s+(?:did|was|were|is|does|do|had|has|will|would|could)\b/.test(q) || wh(DATE_NOUNS).test(q)) return 'date';
  if (/\b(?:who|whom|whose)\b/.test(q) || wh(PERSON_NOUNS).test(q)) return 'person';
  if (/\bwhere\b/.test(q) || wh(PLACE_NOUNS).test(q)) return 'place';
  if (wh(NAME_NOUNS).test(q)) return 'name';
  if (/\bwhy\b/.test(q)) return 'reason';
  return 'other';
}

/** Content words right after what/which (up to two, skipping "kind of"/"type of" style words after them). */
export function focusTerms(question: string): string[] {
  const match = /\b(?:what|which)\s+((?:[a-z-]+\s+){0,2}[a-z-]+)/.exec(question.toLowerCase());
  if (!match) return [];
  const words = match[1]!
    .split(/\s+/)
    .filter((word) => !/^(is|was|are|were|did|does|do|has|had|the|a|an|of|in|on|can|could|would|will|type|kind|sort|form)$/.test(word));
  return words.slice(0, 1).map(stemOf);
}

export function analyseQuestion(question: string): QuestionAnalysis {
  // "When X happens, what ...?": the leading "when" is a clause; the question word that counts comes later.
  const clause = /^\s*(?:when|if|after|before|while|since)\b[^,?]*,\s*(.*\b(?:what|which|who|whom|whose|where|how|why)\b.*)$/i.exec(question);
  const asked = clause?.[1] ?? question;
  return {
    kind: answerKind(asked),
    terms: contentTerms(question),
    focus: focusTerms(asked),
    asksForName: /\b(?:called|named|termed|known as|mean|means|meaning|term for|word for)\b/i.test(question),
  };
}
