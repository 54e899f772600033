import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Import direction: docs/architecture.md holds the import table (the rule); test/unit/layering.test.ts checks the
// source against that table, and these lint rules state the same direction for editors.
const layer = (files, patterns) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: patterns.map((group) => ({ group: [group], message: 'Layering: see the import table in docs/architecture.md.' })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['viewer/dist/**', 'dist/**', 'node_modules/**', 'runs/**', '.cache/**', '.scratch/**', 'tools/**', 'sandboxes/**'] },
  js.configs.recommended,
  { files: ['bin/**/*.mjs', 'scripts/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  ...tseslint.configs.recommended,
  // The run viewer's page runs in the browser (bundled by scripts/build-viewer.mjs).
  { files: ['viewer/page/**/*.js'], languageOptions: { globals: globals.browser } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // Prettier (.prettierrc.json) wraps code at 160 columns but never splits strings; this keeps comments and
      // code under the same limit and lets only a long string, template or regular expression run past it.
      'max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  layer(['src/core/**'], ['**/config/**', '**/sandbox/**', '**/tools/**', '**/mcp/**', '**/http/**', '**/runner/**', '**/cli/**']),
  layer(['src/config/**'], ['**/sandbox/**', '**/tools/**', '**/mcp/**', '**/http/**', '**/runner/**', '**/cli/**']),
  layer(
    ['src/sandbox/*.ts', 'src/sandbox/pool/**', 'src/sandbox/agent-client/**'],
    [
      '**/tools/**',
      '**/mcp/**',
      '**/http/**',
      '**/runner/**',
      '**/cli/**',
      './docker/**',
      './process/**',
      './isolate/**',
      '../docker/**',
      '../process/**',
      '../isolate/**',
    ],
  ),
  layer(['src/sandbox/docker/**'], ['**/tools/**', '**/mcp/**', '**/http/**', '**/runner/**', '**/cli/**', '**/pool/**', '**/process/**', '**/isolate/**']),
  layer(['src/sandbox/process/**'], ['**/tools/**', '**/mcp/**', '**/http/**', '**/runner/**', '**/cli/**', '**/pool/**', '**/docker/**', '**/isolate/**']),
  layer(['src/sandbox/isolate/**'], ['**/tools/**', '**/mcp/**', '**/http/**', '**/runner/**', '**/cli/**', '**/pool/**', '**/docker/**', '**/process/**']),
  layer(
    ['src/tools/**'],
    [
      '**/sandbox/pool/**',
      '**/sandbox/docker/**',
      '**/sandbox/process/**',
      '**/sandbox/isolate/**',
      '**/sandbox/registry*',
      '**/mcp/**',
      '**/http/**',
      '**/runner/**',
      '**/cli/**',
    ],
  ),
  layer(['src/mcp/**'], ['**/http/**', '**/runner/**', '**/cli/**', '**/sandbox/docker/**', '**/sandbox/process/**', '**/sandbox/isolate/**']),
  layer(['src/http/**'], ['**/runner/**', '**/cli/**', '**/sandbox/docker/**', '**/sandbox/process/**', '**/sandbox/isolate/**']),
  layer(['src/runner/**'], ['**/tools/**', '**/mcp/**', '**/http/**', '**/sandbox/**', '**/cli/**']),
  // The environment contract names the restricted sandbox session its hooks and tools receive (sandbox/session.ts), nothing else of sandbox/,
  // and re-exports the one tool contract (tools/, not the built-in tools in its subfolders).
  layer(['src/runner/contract/**'], ['**/tools/*/**', '**/mcp/**', '**/http/**', '**/sandbox/*/**', '**/sandbox/registry*', '**/sandbox/pool*', '**/cli/**']),
  layer(['src/conformance/**'], ['**/http/**', '**/runner/**', '**/cli/**', '**/sandbox/**', '**/testing/**']),
  layer(['src/testing/**'], ['**/mcp/**', '**/http/**', '**/sandbox/**', '**/cli/**', '**/conformance/**']),
);
