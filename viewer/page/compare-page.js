import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { count, fixed, passAtK, runHref } from './format.js';
import { html } from './html.js';

export function ComparePage({ a, b }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [onlyFlips, setOnlyFlips] = useState(false);
  useEffect(() => {
    getJson('compare', { a, b }).then(setData, (cause) => setError(cause.message));
  }, [a, b]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!data) return html`<p class="muted">comparing…</p>`;
  const { comparison } = data;
  const examples = onlyFlips ? comparison.examples.filter((example) => example.flip) : comparison.examples;
  const side = (label, id, values) =>
    html`<tr>
      <td>${label}</td>
      <td><a href=${runHref(id)}>${id}</a></td>
      <td class="num" data-field=${`mean-${label}`}>${fixed(values.avg_reward, 4)}</td>
      <td class="num">${passAtK(values.pass_at_k)}</td>
      <td class="num">${count(values.rollouts)}</td>
      <td class="num">${count(values.errored)}</td>
    </tr>`;
  return html`<section>
    <h1>Compare</h1>
    ${
      comparison.lineage?.length
        ? html`<div class="lineage-box" data-testid="compare-lineage">${comparison.lineage.map((line) => html`<div class="message">${line}</div>`)}</div>`
        : ''
    }
    ${
      comparison.warnings?.length
        ? html`<div class="warning-box" data-testid="compare-warnings">
            ${comparison.warnings.map((warning) => html`<div class="message">${warning}</div>`)}
          </div>`
        : ''
    }
    <table class="grid" data-testid="compare-summary">
      <thead>
        <tr>
          <th></th>
          <th>run</th>
          <th>mean reward</th>
          <th>pass@k</th>
          <th>rollouts</th>
          <th>errored</th>
        </tr>
      </thead>
      <tbody>
        ${side('A', a, comparison.a)} ${side('B', b, comparison.b)}
      </tbody>
    </table>
    <p data-testid="compare-counts">
      ${`${count(comparison.shared)} shared examples · `}<span class="gain" data-testid="compare-gained">${`${comparison.gained} gained`}</span>${' · '}<span
        class="loss"
        data-testid="compare-lost"
        >${`${comparison.lost} lost`}</span
      >${` · mean difference ${fixed(comparison.meanDiff, 4)} · only in A ${comparison.onlyA} · only in B ${comparison.onlyB}`}
    </p>
    <label><input type="checkbox" checked=${onlyFlips} onChange=${() => setOnlyFlips(!onlyFlips)} /> only flipped examples</label>
    <table class="grid" data-testid="compare-examples">
      <thead>
        <tr>
          <th>example</th>
          <th>A</th>
          <th>B</th>
          <th>B − A</th>
          <th>flip</th>
        </tr>
      </thead>
      <tbody>
        ${examples.map(
          (example) =>
            html`<tr data-example=${example.example_id} class=${example.flip ?? ''}>
              <td>${example.example_id}</td>
              <td class="num">${fixed(example.a)}</td>
              <td class="num">${fixed(example.b)}</td>
              <td class="num">${fixed(example.diff)}</td>
              <td>${example.flip ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
