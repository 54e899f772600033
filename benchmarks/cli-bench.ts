/**
 * `corral bench cli`: how long `corral --version` and `corral --help` take to start, installed and in a checkout,
 * against `node -e 0` in the same run. The installed layout is built here the way `npm pack` + install lays it out
 * (bin/, package.json and dist/src/ compiled from this checkout's src/ into a temporary folder, no src/), with
 * this checkout's node_modules linked in, so the figure is never that of a stale dist/.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/core/project-root.js';
import { type Figure, round } from './figure.js';
import { execFileAsync, median } from './measure.js';

export interface CliBenchOptions {
  /** Interleaved rounds; each round runs every variant once (after one untimed warm-up round). */
  runs: number;
  log: (line: string) => void;
}

interface Variant {
  name: string;
  args: string[];
  target?: string;
}

export async function runCliBench(options: CliBenchOptions): Promise<Figure[]> {
  const root = projectRoot();
  const installed = mkdtempSync(join(tmpdir(), 'corral-bench-cli-'));
  try {
    options.log(`compiling src/ into an installed layout at ${installed}`);
    layOutInstalledPackage(root, installed);
    const variants: Variant[] = [
      { name: 'installed.version', args: [join(installed, 'bin', 'corral.mjs'), '--version'], target: '<= 150 ms' },
      { name: 'installed.help', args: [join(installed, 'bin', 'corral.mjs'), '--help'], target: '<= 300 ms' },
      { name: 'checkout.version', args: [join(root, 'bin', 'corral.mjs'), '--version'] },
      { name: 'checkout.help', args: [join(root, 'bin', 'corral.mjs'), '--help'] },
    ];
    const peer: Variant = { name: 'node -e 0', args: ['-e', '0'] };
    const samples = new Map<Variant, number[]>([peer, ...variants].map((variant) => [variant, []]));
    for (let roundIndex = -1; roundIndex < options.runs; roundIndex++) {
      // Rotate the order each round, so no variant always runs right after the same neighbour.
      const all = [peer, ...variants];
      const order = all.map((_, index) => all[(index + Math.max(roundIndex, 0)) % all.length]!);
      for (const variant of order) {
        const elapsed = await timeNodeMs(variant.args);
        if (roundIndex >= 0) samples.get(variant)!.push(elapsed);
      }
      if (roundIndex >= 0) options.log(`round ${roundIndex + 1}/${options.runs} done`);
    }
    const peerMs = median(samples.get(peer)!);
    return variants.map((variant) => {
      const value = median(samples.get(variant)!);
      return {
        name: `cli.${variant.name}.p50`,
        value: round(value, 1),
        unit: 'ms',
        peer: peer.name,
        peerValue: round(peerMs, 1),
        ratio: round(peerMs / value),
        ...(variant.target ? { target: variant.target } : {}),
      };
    });
  } finally {
    rmSync(installed, { recursive: true, force: true });
  }
}

/** bin/, package.json and dist/src/ (compiled now, as prepack does), and node_modules linked from the checkout. */
function layOutInstalledPackage(root: string, installed: string): void {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')], { cwd: root, stdio: 'inherit' });
  cpSync(join(root, 'bin'), join(installed, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(installed, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'));
}

async function timeNodeMs(args: readonly string[]): Promise<number> {
  const startedAt = performance.now();
  await execFileAsync(process.execPath, args, { maxBuffer: 1 << 20 });
  return performance.now() - startedAt;
}
