#!/usr/bin/env node
// In a checkout (src/cli/main.ts is there and tsx resolves) the CLI runs the TypeScript sources through tsx, so
// it never runs a stale build. An installed package runs the compiled dist/ that `prepack` built; tsx is then
// registered after the CLI has loaded, only so that a user's environment or agent module written in .ts loads.
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const checkoutEntry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch {
    return undefined;
  }
}

const register = await tsxRegister();
let main;
if (existsSync(checkoutEntry) && register) {
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
  register?.();
}
await main(process.argv);
