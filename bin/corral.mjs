#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so the CLI never runs a stale build.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
