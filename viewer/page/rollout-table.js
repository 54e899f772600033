// The run page's table: one page of rows from /api/rollouts at a time (sorting, filtering and paging happen on the
// server over its in-memory rows), so 100,000 rollouts cost the browser 50 rows.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { fixed, ms, num, rolloutHref } from './format.js';
import { html } from './html.js';

const PAGE = 50;

export function RolloutTable({ run, metrics, version, errorCodes }) {
  const [query, setQuery] = useState({ sort: 'line', order: 'asc', offset: 0, error: '', q: '', min_reward: '', max_reward: '' });
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    getJson('rollouts', { run, limit: PAGE, ...query }).then(setPage, (cause) => setError(cause.message));
  }, [run, version, JSON.stringify(query)]);
  const update = (change) => setQuery((current) => ({ ...current, offset: 0, ...change }));
  const sortBy = (sort) => update({ sort, order: query.sort === sort && query.order === 'desc' ? 'asc' : 'desc' });
  const header = (sort, label) =>
    html`<th class="sortable" data-sort=${sort} onClick=${() => sortBy(sort)}>
      ${label}${query.sort === sort ? (query.order === 'desc' ? ' ▾' : ' ▴') : ''}
    </th>`;
  return html`<section>
    <h2>Rollouts</h2>
    <div class="toolbar">
      <input
        data-testid="rollouts-text"
        placeholder="text (example id, answer, error)"
        value=${query.q}
        onChange=${(event) => update({ q: event.target.value })}
      />
      <select data-testid="rollouts-error" value=${query.error} onChange=${(event) => update({ error: event.target.value })}>
        <option value="">all rollouts</option>
        <option value="none">no error</option>
        <option value="any">any error</option>
        ${errorCodes.map((code) => html`<option value=${code}>${code}</option>`)}
      </select>
      <input
        class="short"
        data-testid="rollouts-min"
        placeholder="min reward"
        value=${query.min_reward}
        onChange=${(event) => update({ min_reward: event.target.value })}
      />
      <input
        class="short"
        data-testid="rollouts-max"
        placeholder="max reward"
        value=${query.max_reward}
        onChange=${(event) => update({ max_reward: event.target.value })}
      />
      ${page ? html`<span class="muted" data-testid="rollouts-matched">${page.matched.toLocaleString('en-US')} of ${page.total.toLocaleString('en-US')}</span>` : ''}
    </div>
    ${error ? html`<p class="error">${error}</p>` : ''}
    <table class="grid" data-testid="rollouts-table">
      <thead>
        <tr>
          ${header('line', '#')} ${header('example_id', 'example')} ${header('rollout_index', 'r')} ${header('reward', 'reward')}
          ${metrics.map((name) => header(`metric:${name}`, name))} ${header('turns', 'turns')} ${header('tool_calls', 'tool calls')} ${header('error', 'error')}
          ${header('total_ms', 'duration')}
        </tr>
      </thead>
      <tbody>
        ${(page?.rows ?? []).map(
          (row) =>
            html`<tr class=${row.error ? 'errored' : ''} data-line=${row.line}>
              <td class="num"><a href=${rolloutHref(run, row.line)}>${row.line}</a></td>
              <td><a href=${rolloutHref(run, row.line)}>${row.example_id}</a></td>
              <td class="num">${row.rollout_index}</td>
              <td class="num" data-field="reward">${fixed(row.reward)}</td>
              ${metrics.map((name) => html`<td class="num">${num(row.metrics[name])}</td>`)}
              <td class="num">${row.turns}</td>
              <td class="num">${row.tool_calls}</td>
              <td>${row.error ? html`<span class="error-code" title=${row.error.message}>${row.error.code}</span>` : ''}</td>
              <td class="num">${ms(row.timing.total_ms)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      page
        ? html`<div class="pager">
            <button disabled=${query.offset === 0} onClick=${() => setQuery({ ...query, offset: Math.max(0, query.offset - PAGE) })}>previous</button>
            <span data-testid="rollouts-range">${page.matched === 0 ? 0 : query.offset + 1}–${Math.min(query.offset + PAGE, page.matched)}</span>
            <button
              data-testid="rollouts-next"
              disabled=${query.offset + PAGE >= page.matched}
              onClick=${() => setQuery({ ...query, offset: query.offset + PAGE })}
            >
              next
            </button>
          </div>`
        : ''
    }
  </section>`;
}
