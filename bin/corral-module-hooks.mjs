// Module resolution hooks (node:module register) that let a user's environment module, in any folder, import corral
// without installing it: `import { defineEnvironment, defineTool, z } from 'corral'`.
//
// The rule: a module's own resolution always wins. Only when Node cannot resolve `corral`, `corral/<subpath>`,
// `zod` or `zod/<subpath>` from the importing file do these hooks answer, with the corral that is running (its
// package exports; its src/*.ts under a checkout) and corral's own zod, so schemas and errors are the same
// instances the CLI uses. A folder with its own node_modules/corral keeps it.
//
// A TypeScript file whose package scope does not say "type": "module" (no package.json at all, one without the
// field, or the "type": "commonjs" that `npm init -y` writes since npm 11) is loaded as an ES module when it contains
// import/export statements: the per-file inference Node applies to .js, applied to .ts. Compiled to CommonJS instead,
// `import { defineEnvironment } from 'corral'` would become a require() of corral's ES modules, which fails. These
// hooks run before tsx's (bin/corral.mjs registers them first), so tsx sees the format and compiles to ESM. A .ts
// file written as CommonJS (require, module.exports, no import/export) stays CommonJS; use .cts to force it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

let corralRoot = '';
let checkout = false;
/** A checkout running its dist/ (bin/corral.mjs, CORRAL_RUN_BUILD): imports of src/ files get their compiled twins. */
let sourcesFromBuild = false;
/** Export subpath ('.', './testing') to its target path relative to the corral root. */
let exportTargets = new Map();

export function initialize(data) {
  corralRoot = data.root;
  checkout = data.checkout === true;
  sourcesFromBuild = data.sourcesFromBuild === true;
  const manifest = JSON.parse(readFileSync(join(corralRoot, 'package.json'), 'utf8'));
  exportTargets = new Map(
    Object.entries(manifest.exports ?? {}).map(([subpath, target]) => [subpath, typeof target === 'string' ? target : (target.default ?? target.import)]),
  );
}

const CORRAL_SPECIFIER = /^corral(\/.+)?$/;
const ZOD_SPECIFIER = /^zod(\/.+)?$/;

export async function resolve(specifier, context, nextResolve) {
  const compiled = sourcesFromBuild ? compiledTwinUrl(specifier, context.parentURL) : undefined;
  if (compiled) return { url: compiled, format: 'module', shortCircuit: true };
  const isCorral = CORRAL_SPECIFIER.test(specifier);
  if (!isCorral && !ZOD_SPECIFIER.test(specifier)) return withTypeScriptFormat(await nextResolve(specifier, context));
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' && error?.code !== 'MODULE_NOT_FOUND') throw error;
    if (isCorral) return { url: corralEntryUrl(specifier), shortCircuit: true };
    // zod from corral's own folder: a self-reference-free ordinary lookup from corral's package.json.
    return nextResolve(specifier, { ...context, parentURL: pathToFileURL(join(corralRoot, 'package.json')).href });
  }
}

/**
 * dist/src/x.js for an import of the checkout's src/x.ts (or src/x.js, as TypeScript spells it), so a test module
 * that imports corral's sources shares one copy of every corral module with the compiled CLI running it.
 */
function compiledTwinUrl(specifier, parentURL) {
  const relativeOrFile = specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('file:') || specifier.startsWith('/');
  if (!relativeOrFile || !parentURL?.startsWith('file:')) return undefined;
  const path = fileURLToPath(new URL(specifier, parentURL));
  const sources = join(corralRoot, 'src') + sep;
  if (!path.startsWith(sources) || !/\.(ts|js)$/.test(path)) return undefined;
  const twin = join(corralRoot, 'dist', 'src', path.slice(sources.length).replace(/\.(ts|js)$/, '.js'));
  return existsSync(twin) ? pathToFileURL(twin).href : undefined;
}

function corralEntryUrl(specifier) {
  const subpath = specifier === 'corral' ? '.' : `.${specifier.slice('corral'.length)}`;
  const target = exportTargets.get(subpath);
  if (typeof target !== 'string') {
    const error = new Error(`corral has no export "${subpath}" (its package.json exports: ${[...exportTargets.keys()].join(', ')})`);
    error.code = 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    throw error;
  }
  // Under a checkout the CLI runs src/ through tsx; the user's module must get those same module instances.
  const source = target.replace(/^\.\/dist\/src\/(.*)\.js$/, './src/$1.ts');
  const path = join(corralRoot, checkout && source !== target && existsSync(join(corralRoot, source)) ? source : target);
  return pathToFileURL(path).href;
}

const TYPESCRIPT_FILE = /\.ts$/;
const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s+(default|const|let|var|function|async|class|type|interface|enum|\{|\*))/m;
const scopeTypes = new Map();

function withTypeScriptFormat(resolved) {
  if (!resolved.url.startsWith('file:') || !TYPESCRIPT_FILE.test(new URL(resolved.url).pathname)) return resolved;
  if (resolved.format && resolved.format !== 'commonjs') return resolved;
  const path = fileURLToPath(resolved.url);
  if (packageScopeType(dirname(path)) === 'module') return resolved;
  let source = '';
  try {
    source = readFileSync(path, 'utf8');
  } catch {
    return resolved;
  }
  return ESM_SYNTAX.test(source) ? { ...resolved, format: 'module' } : resolved;
}

/** The "type" of the nearest package.json above `directory` (undefined when none says, or there is none). */
function packageScopeType(directory) {
  if (scopeTypes.has(directory)) return scopeTypes.get(directory);
  const manifest = join(directory, 'package.json');
  let type;
  if (existsSync(manifest)) {
    try {
      type = JSON.parse(readFileSync(manifest, 'utf8')).type;
    } catch {
      type = undefined;
    }
  } else {
    const parent = dirname(directory);
    type = parent === directory ? undefined : packageScopeType(parent);
  }
  scopeTypes.set(directory, type);
  return type;
}
