#!/usr/bin/env node
// In a checkout (src/cli/main.ts is there and tsx resolves) the CLI runs the TypeScript sources through tsx, so
// it never runs a stale build. An installed package runs the compiled dist/ that `prepack` built; its module hooks
// and tsx are then registered only when a command runs (after that command's modules loaded), so that a user's
// environment or agent module written in .ts loads, while `--version` and `--help` start without either.
// CORRAL_RUN_BUILD=1 runs a checkout's dist/ instead (the e2e tests set it when dist/ is stamped with the hash of the
// sources it was compiled from), and a module's imports of the checkout's src/ files are answered from dist/ too.
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { URL, fileURLToPath } from 'node:url';

const checkoutEntry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch {
    return undefined;
  }
}

// Before tsx's hooks, so a user's module anywhere can import 'corral' and its .ts format is seen by tsx (see the file).
function registerCorralHooks(checkout, sourcesFromBuild = false) {
  registerHooks('./corral-module-hooks.mjs', import.meta.url, {
    data: { root: fileURLToPath(new URL('..', import.meta.url)), checkout, sourcesFromBuild },
  });
}

const buildEntry = new URL('../dist/src/cli/main.js', import.meta.url);
const runBuild = process.env.CORRAL_RUN_BUILD === '1' && existsSync(checkoutEntry) && existsSync(buildEntry);
const checkoutRegister = existsSync(checkoutEntry) && !runBuild ? await tsxRegister() : undefined;
if (checkoutRegister) {
  registerCorralHooks(true);
  checkoutRegister();
  const { main } = await import('../src/cli/main.ts');
  await main(process.argv);
} else {
  const { main } = await import('../dist/src/cli/main.js');
  await main(process.argv, {
    beforeCommandRuns: async () => {
      registerCorralHooks(false, runBuild);
      (await tsxRegister())?.();
    },
  });
}
