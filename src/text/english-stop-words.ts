/**
 * English function words dropped from queries and pages before ranking. Questions are full sentences
 * ("What year did the team win its first title?"), and without this list BM25 spends part of every
 * score on "what", "did" and "the". Deliberately short (the classic SMART/Lucene core plus question
 * words): content words such as "first", "year" or "name" stay searchable.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom whose why ' +
    'will with would you your yours yourself yourselves s t don didn doesn isn wasn weren'
  ).split(' '),
);
