/**
 * `corral env init [dir]`: a new environment that runs out of the box. It writes package.json (an ES module package
 * with the "corral" field, so the folder is also an installable environment package), index.ts (a custom tool, a
 * dataset, a rubric), agents.ts (a reference agent that should score 1 and a floor that should score 0, written
 * with defineAgent) and a README; `npm test` runs the reference with `corral eval`. Existing files are never
 * overwritten (ENV_ERR_INIT_EXISTS).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CorralError } from '../../core/errors.js';

export interface ScaffoldedEnvironment {
  directory: string;
  name: string;
  files: string[];
}

export function scaffoldEnvironment(target: string): ScaffoldedEnvironment {
  const directory = resolve(target);
  const name = environmentNameOf(basename(directory));
  const files = scaffoldFiles(name);
  const existing = Object.keys(files).filter((file) => existsSync(join(directory, file)));
  if (existing.length > 0) {
    throw new CorralError(
      'ENV_ERR_INIT_EXISTS',
      `${directory} already holds ${existing.join(', ')}; corral env init never overwrites: choose an empty folder`,
      {
        details: { directory, existing },
      },
    );
  }
  mkdirSync(directory, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(directory, file), text);
  return { directory, name, files: Object.keys(files) };
}

/** Lowercase letters, digits and dashes, as defineEnvironment requires. */
function environmentNameOf(folderName: string): string {
  const name = folderName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name.length > 0 ? name : 'my-env';
}

function scaffoldFiles(name: string): Record<string, string> {
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    description: `The ${name} environment for corral.`,
    corral: { environment: './index.ts' },
    scripts: {
      test: 'corral eval ./index.ts --agent reference --no-progress --max-errors 0 && corral eval ./index.ts --agent floor --no-progress --max-errors 0',
      eval: 'corral eval ./index.ts',
    },
    peerDependencies: { corral: '*' },
    peerDependenciesMeta: { corral: { optional: true } },
  };
  return {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'index.ts': INDEX_TEMPLATE.replaceAll('__NAME__', name),
    'agents.ts': AGENTS_TEMPLATE,
    'README.md': README_TEMPLATE.replaceAll('__NAME__', name),
  };
}

const INDEX_TEMPLATE = `/**
 * __NAME__: the model looks up capitals with the \`lookup\` tool and answers with the city. Replace the dataset, the
 * tool and the rubric with your own; docs/environments.md in corral has every field.
 */
import { defineEnvironment, defineTool, z } from 'corral';
import { agents } from './agents.js';

const CAPITALS: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Kenya: 'Nairobi', Peru: 'Lima' };

const lookup = defineTool({
  name: 'lookup',
  description: 'Returns the capital city of a country, e.g. {"country": "France"} -> Paris.',
  inputSchema: z.object({ country: z.string().describe('the country, in English') }),
  annotations: { readOnlyHint: true, idempotentHint: true },
  execute: ({ country }) => CAPITALS[country] ?? \`no capital known for \${country}\`,
});

export default defineEnvironment({
  name: '__NAME__',
  description: 'Capital cities, looked up with a tool.',
  tools: [lookup],
  dataset: () =>
    Object.entries(CAPITALS).map(([country, capital]) => ({
      id: country.toLowerCase(),
      prompt: \`What is the capital of \${country}? Use the lookup tool, then answer with the city alone.\`,
      answer: capital,
      info: { country },
    })),
  rubric: [
    {
      name: 'correct',
      weight: 1,
      score: ({ example, trajectory }) => ((trajectory.answer ?? '').trim().toLowerCase() === String(example.answer).toLowerCase() ? 1 : 0),
    },
  ],
  systemPrompt: 'Answer questions about capital cities. Use the lookup tool, then reply with the city alone.',
  maxTurns: 4,
});

export { agents };
`;

const AGENTS_TEMPLATE = `/**
 * Model-free agents, so the environment runs in CI without a model: \`corral eval ./index.ts --agent reference\`
 * should score 1.0 (anything less points at the tool or the rubric) and \`--agent floor\` 0.0 (a rubric that rewards
 * it is broken). Each callTool(name, args) is recorded as one turn, as a model's would be; answer(text) is the
 * final message the rubric reads.
 */
import { defineAgent } from 'corral';

export const agents = {
  reference: defineAgent({
    name: 'reference',
    async run({ example, callTool, answer }) {
      const looked = await callTool('lookup', { country: String(example.info?.country) });
      answer(looked.isError ? 'unknown' : looked.text.trim());
    },
  }),
  floor: defineAgent({
    name: 'floor',
    run({ answer }) {
      answer('I do not know.');
    },
  }),
};
`;

const README_TEMPLATE = `# __NAME__

A corral environment. Run it:

\`\`\`sh
corral eval ./index.ts --agent reference          # model-free reference: expect reward 1.0
corral eval ./index.ts --agent floor              # model-free floor: expect reward 0.0
corral eval ./index.ts --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1 -r 4
npm test                                          # both agents, failing on any errored rollout
\`\`\`

Share it as a package: \`npm pack\`, then \`corral env install ./__NAME__-0.1.0.tgz\` and \`corral eval __NAME__\`.
`;
