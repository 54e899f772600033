import { readFileSync } from 'node:fs';
const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const counts = new Map(); let total = 0;
profile.samples.forEach((id, i) => { counts.set(id, (counts.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)); total += profile.timeDeltas[i] ?? 0; });
const group = (url, fn) => {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  let m = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/); if (m) return m[1];
  m = url.match(/\/work\/main\/(src\/[^/]+(\/[^/]+)?)/); if (m) return m[1].replace(/\/[^/]+\.ts$/, '');
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[1];
  return url.split('/').slice(-2).join('/');
};
const self = new Map();
for (const [id, t] of counts) { const n = byId.get(id); const k = group(n.callFrame.url, n.callFrame.functionName); self.set(k, (self.get(k) ?? 0) + t); }
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((t / total * 100).toFixed(1).padStart(5), '%', k);
