/**
 * Source run once inside every new context, as a closure body (`$0` is the host's log callback). It installs
 * `console` and returns `finish(value)`, which awaits a thenable completion value and renders it as text.
 *
 * Why in the isolate: rendering must run user code (getters, toString, Proxy traps) under the call's timeout and
 * memory limit, and values such as functions or cyclic objects cannot cross the boundary at all. Only strings leave.
 * It is a plain string, not a TypeScript function's toString(), because transpilers may inject helpers (e.g.
 * esbuild's `__name`) that do not exist inside the isolate. Intrinsics are captured up front so that user code
 * replacing `JSON` or `Array.isArray` later cannot break rendering.
 */
export const PRELUDE_FILENAME = 'corral-prelude.js';

export const PRELUDE_SOURCE = String.raw`
'use strict';
const emitLog = $0;
const MAX_DEPTH = 4, MAX_ITEMS = 100, MAX_TEXT = 100000, LINE_WIDTH = 72;
const { keys, getPrototypeOf, getOwnPropertyDescriptor, is } = Object;
const { isArray } = Array;
const isView = ArrayBuffer.isView;
const stringify = JSON.stringify;
const StringOf = String, ErrorClass = Error, DateClass = Date, RegExpClass = RegExp, MapClass = Map, SetClass = Set;
const PromiseClass = Promise, ObjectProto = Object.prototype;
const dateToIso = Date.prototype.toISOString, symbolToString = Symbol.prototype.toString;
const functionToString = Function.prototype.toString;
const reflectApply = Reflect.apply;
const call = (fn, self, ...args) => reflectApply(fn, self, args);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function truncate(text) {
  return text.length <= MAX_TEXT ? text : text.slice(0, MAX_TEXT) + '… [' + (text.length - MAX_TEXT) + ' more characters]';
}
function indent(text) {
  return text.split('\n').map((line) => '  ' + line).join('\n');
}
function packRows(entries) {
  const rows = [];
  let row = '';
  for (const entry of entries) {
    if (row && row.length + entry.length + 2 > LINE_WIDTH) { rows.push(row + ','); row = ''; }
    row += (row ? ', ' : '') + entry;
  }
  rows.push(row);
  return rows;
}
// Lists of many short items (numbers, short strings) are packed several per line, as Node's inspect does.
function wrap(open, entries, close, packable) {
  if (entries.length === 0) return open + close;
  const flat = open + ' ' + entries.join(', ') + ' ' + close;
  if (flat.length <= LINE_WIDTH && !flat.includes('\n')) return flat;
  if (packable && entries.length > 6 && entries.every((entry) => entry.length <= 16 && !entry.includes('\n'))) {
    return open + '\n' + packRows(entries).map(indent).join('\n') + '\n' + close;
  }
  return open + '\n' + entries.map(indent).join(',\n') + '\n' + close;
}
function constructorName(value) {
  const proto = getPrototypeOf(value);
  if (proto === null) return '[Object: null prototype]';
  const ctor = proto.constructor;
  return typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name : '';
}
function renderKey(key) {
  return IDENTIFIER.test(key) ? key : stringify(key);
}
function renderError(error, nested) {
  const header = StringOf(error.name) + ': ' + StringOf(error.message);
  if (nested) return '[' + header + ']';
  return typeof error.stack === 'string' && error.stack.length > 0 ? error.stack : header;
}
function renderFunction(fn) {
  const isClass = /^class[\s{]/.test(call(functionToString, fn));
  const name = typeof fn.name === 'string' && fn.name ? fn.name : '(anonymous)';
  return isClass ? '[class ' + name + ']' : '[Function: ' + name + ']';
}
function renderItems(list, depth, seen, total) {
  const entries = [];
  for (let index = 0; index < list.length && index < MAX_ITEMS; index++) entries.push(inspect(list[index], depth + 1, seen));
  if (total > MAX_ITEMS) entries.push('... ' + (total - MAX_ITEMS) + ' more items');
  return entries;
}
// Like Node's inspect, accessors are shown, not called: rendering should not run arbitrary user getters.
function renderProperty(object, key, depth, seen) {
  const descriptor = getOwnPropertyDescriptor(object, key);
  if (descriptor && ('get' in descriptor || 'set' in descriptor)) {
    return descriptor.get && descriptor.set ? '[Getter/Setter]' : descriptor.get ? '[Getter]' : '[Setter]';
  }
  return inspect(object[key], depth + 1, seen);
}
function renderContainer(value, depth, seen) {
  if (isArray(value)) return wrap('[', renderItems(value, depth, seen, value.length), ']', true);
  if (value instanceof MapClass) {
    const entries = [];
    for (const [key, item] of value) {
      if (entries.length === MAX_ITEMS) { entries.push('... ' + (value.size - MAX_ITEMS) + ' more items'); break; }
      entries.push(inspect(key, depth + 1, seen) + ' => ' + inspect(item, depth + 1, seen));
    }
    return wrap('Map(' + value.size + ') {', entries, '}');
  }
  if (value instanceof SetClass) return wrap('Set(' + value.size + ') {', renderItems([...value].slice(0, MAX_ITEMS), depth, seen, value.size), '}', true);
  if (isView(value) && typeof value.length === 'number') {
    return wrap(constructorName(value) + '(' + value.length + ') [', renderItems(value, depth, seen, value.length), ']', true);
  }
  if (value instanceof PromiseClass) return 'Promise {}';
  const ownKeys = keys(value);
  const entries = ownKeys.slice(0, MAX_ITEMS).map((key) => renderKey(key) + ': ' + renderProperty(value, key, depth, seen));
  if (ownKeys.length > MAX_ITEMS) entries.push('... ' + (ownKeys.length - MAX_ITEMS) + ' more properties');
  const name = constructorName(value);
  const prefix = getPrototypeOf(value) === ObjectProto || name === 'Object' ? '' : name + ' ';
  return wrap(prefix + '{', entries, '}');
}
function inspect(value, depth, seen) {
  switch (typeof value) {
    case 'string': return depth === 0 ? value : stringify(value);
    case 'number': return is(value, -0) ? '-0' : StringOf(value);
    case 'bigint': return StringOf(value) + 'n';
    case 'boolean': case 'undefined': return StringOf(value);
    case 'symbol': return call(symbolToString, value);
    case 'function': return renderFunction(value);
  }
  if (value === null) return 'null';
  if (seen.includes(value)) return '[Circular]';
  if (value instanceof ErrorClass) return renderError(value, depth > 0);
  if (value instanceof DateClass) { const time = value.getTime(); return time === time ? call(dateToIso, value) : 'Invalid Date'; }
  if (value instanceof RegExpClass) return StringOf(value);
  if (depth >= MAX_DEPTH) return isArray(value) ? '[Array]' : '[Object]';
  seen.push(value);
  try { return renderContainer(value, depth, seen); } finally { seen.pop(); }
}
function render(value) {
  try { return truncate(inspect(value, 0, [])); }
  catch (error) {
    try { return truncate(StringOf(value)); } catch { return '[value could not be rendered]'; }
  }
}
function describeError(error) {
  if (error instanceof ErrorClass || (error !== null && typeof error === 'object' && 'message' in error && 'name' in error)) {
    try {
      const name = StringOf(error.name), message = StringOf(error.message);
      const stack = typeof error.stack === 'string' ? error.stack : name + ': ' + message;
      return { name, message, stack: truncate(stack) };
    } catch { /* fall through: a hostile getter */ }
  }
  return { name: 'Uncaught', message: render(error), stack: '' };
}
function log(...args) {
  let line;
  try { line = args.map((argument) => typeof argument === 'string' ? argument : render(argument)).join(' '); }
  catch { line = '[log arguments could not be rendered]'; }
  emitLog(truncate(line));
}
const consoleObject = {
  log, info: log, debug: log, warn: log, error: log, trace: log,
  dir: (value) => emitLog(render(value)),
  assert: (condition, ...args) => { if (!condition) log('Assertion failed' + (args.length ? ':' : ''), ...args); },
};
Object.defineProperty(globalThis, 'console', { value: consoleObject, writable: true, configurable: true, enumerable: false });

return async function finish(value) {
  try {
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
      value = await value;
    }
    return { value: value === undefined ? null : render(value), error: null };
  } catch (error) {
    return { value: null, error: describeError(error) };
  }
};
`;
