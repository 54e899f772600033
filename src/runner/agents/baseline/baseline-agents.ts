/** The model-free agents the CLI offers by name (`--agent baseline|oracle|empty`). */
import type { Agent } from '../agent.js';
import { EmptyCodeAgent } from './baseline-empty-code-agent.js';
import { BaselineWikiAgent } from './baseline-wiki-agent.js';
import { OracleCodeAgent } from './oracle-code-agent.js';

/** Factories, like builtInEnvironments, so each run gets a fresh agent. */
export const builtInAgents: Readonly<Record<string, () => Agent>> = Object.freeze({
  baseline: () => new BaselineWikiAgent(),
  oracle: () => new OracleCodeAgent(),
  empty: () => new EmptyCodeAgent(),
});

/** What each built-in agent is for, for `--help` and for a warning when it is run on another environment. */
export const builtInAgentNotes: Readonly<Record<string, { environments: readonly string[]; description: string }>> = Object.freeze({
  baseline: {
    environments: ['wiki-search'],
    description: 'Searches, reads the top page up to the section the search pointed at and answers with a span picked by lexical overlap (no model).',
  },
  oracle: { environments: ['python-code'], description: "Writes the dataset's reference solution to solution.py (expect 100%)." },
  empty: { environments: ['python-code'], description: 'Writes the function signature with an empty body (expect 0%).' },
});
