export const fixed = (value, digits = 3) => (value === null || value === undefined || Number.isNaN(value) ? '–' : Number(value).toFixed(digits));
// A whole number (a count such as turns) as itself, anything else with `digits` decimals: 9, not 9.0000.
export const num = (value, digits = 3) => (Number.isInteger(value) ? Number(value).toLocaleString('en-US') : fixed(value, digits));
// Metrics the page already shows as its own cards and columns (a verifier's reward, rubric-recorded turns and tool calls).
export const SHOWN_ELSEWHERE = new Set(['reward', 'turns', 'tool_calls']);
export const count = (value) => (value === null || value === undefined ? '–' : Number(value).toLocaleString('en-US'));
export const ms = (value) => {
  if (value === null || value === undefined) return '–';
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  return `${Math.floor(value / 60_000)} min ${Math.round((value % 60_000) / 1000)} s`;
};
export const passAtK = (record) =>
  record
    ? Object.entries(record)
        .map(([k, value]) => `@${k} ${fixed(value)}`)
        .join(' ')
    : '–';
export const runHref = (id) => `#/run/${encodeURIComponent(id)}`;
export const rolloutHref = (id, line) => `#/rollout/${encodeURIComponent(id)}/${line}`;
