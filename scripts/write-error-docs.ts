// Regenerates docs/errors.md from ERROR_CODES (npm run docs:errors). The error-codes test fails when they drift.
import { writeFileSync } from 'node:fs';
import { ERROR_CODES } from '../src/core/errors.js';

const rows = Object.entries(ERROR_CODES).map(([code, entry]) => `| \`${code}\` | ${entry.audience} | ${entry.transient ? 'yes' : 'no'} | ${entry.doc} |`);
const text = `# Error codes

Every error corral raises on purpose is a \`CorralError\` with one of these stable codes. *Audience* says where it goes:
\`model\` errors become tool results with \`isError: true\` that the model can read; \`caller\` errors are misuse of an API
or config; \`infrastructure\` errors mark a rollout *errored*, never scored 0. *Transient* errors may be retried.

| code | audience | transient | meaning |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
writeFileSync(new URL('../docs/errors.md', import.meta.url), text);
