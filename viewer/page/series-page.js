// A series: a trainer's rollout requests over its steps (POST /v1/rollouts with record: {series, step}), drawn as
// curves: mean reward with its spread, errored share, tokens per rollout, time per step. Reloads every few seconds
// while the trainer runs.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { count, fixed, ms, runHref } from './format.js';
import { html } from './html.js';
import { StepChart } from './series-chart.js';

const RELOAD_MS = 5000;

export function SeriesPage({ name }) {
  const [curve, setCurve] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const load = () => getJson('series', { name }).then(setCurve, (cause) => setError(cause.message));
    load();
    const timer = setInterval(load, RELOAD_MS);
    return () => clearInterval(timer);
  }, [name]);
  const charts = useMemo(() => curve && seriesCharts(curve.steps), [curve]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!curve) return html`<p class="muted">loading ${name}…</p>`;
  const last = curve.steps.at(-1);
  return html`<section>
    <h1>${name} <span class="muted">series</span></h1>
    <p class="muted">${[curve.env, curve.model].filter(Boolean).join(' · ')} ${curve.run ? html` · <a href=${runHref(curve.run)}>its rollouts</a>` : ''}</p>
    <div class="cards">
      <div class="card"><b data-testid="series-steps">${count(curve.steps.length)}</b>steps</div>
      <div class="card"><b>${count(curve.steps.reduce((total, step) => total + step.rollouts, 0))}</b>rollouts</div>
      <div class="card"><b data-testid="series-last-reward">${fixed(last?.reward_mean, 4)}</b>mean reward, last step</div>
      <div class="card"><b>${fixed(last?.prompt_tokens_per_rollout, 1)}</b>prompt tokens per rollout, last step</div>
      <div class="card"><b>${ms(last?.time_ms)}</b>last step</div>
    </div>
    <div class="charts">
      <${StepChart} title="mean reward (band: ± std; lines: min, max)" testId="series-reward" ...${charts.reward} />
      <${StepChart} title="errored share" testId="series-errored" range=${[0, 1]} format=${(value) => `${Math.round(value * 100)}%`} ...${charts.errored} />
      <${StepChart} title="sampled tokens per rollout (all turns)" testId="series-tokens" ...${charts.tokens} />
      <${StepChart} title="time per step (s)" testId="series-time" ...${charts.time} />
    </div>
  </section>`;
}

function seriesCharts(steps) {
  const x = steps.map((step) => step.step);
  const pick = (key) => steps.map((step) => step[key]);
  const mean = pick('reward_mean');
  const std = pick('reward_std');
  return {
    reward: {
      steps: x,
      lines: [
        { label: 'mean', values: mean },
        { label: 'min', values: pick('reward_min') },
        { label: 'max', values: pick('reward_max') },
      ],
      band: {
        label: 'mean ± std',
        lower: mean.map((value, index) => (value === null ? null : value - std[index])),
        upper: mean.map((value, index) => (value === null ? null : value + std[index])),
      },
    },
    errored: { steps: x, lines: [{ label: 'errored', values: pick('errored_share') }] },
    tokens: { steps: x, lines: [{ label: 'completion tokens', values: pick('completion_tokens_per_rollout') }] },
    time: { steps: x, lines: [{ label: 'seconds', values: steps.map((step) => step.time_ms / 1000) }] },
  };
}

export function SeriesListPage() {
  const [series, setSeries] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    getJson('series-list').then(
      (body) => setSeries(body.series),
      (cause) => setError(cause.message),
    );
  }, []);
  if (error) return html`<p class="error">${error}</p>`;
  if (!series) return html`<p class="muted">loading…</p>`;
  return html`<section>
    <h1>Series</h1>
    <p class="muted">Rollout requests a trainer sent with <code>record: {series, step}</code>, one curve per series.</p>
    ${
      series.length === 0
        ? html`<p class="muted">none yet</p>`
        : html`<table class="grid" data-testid="series-table">
            <thead>
              <tr>
                <th>series</th>
                <th>steps</th>
                <th>last step</th>
                <th>rollouts</th>
                <th>mean reward, last step</th>
                <th>updated</th>
              </tr>
            </thead>
            <tbody>
              ${series.map(
                (entry) =>
                  html`<tr>
                    <td><a href=${`#/series/${encodeURIComponent(entry.name)}`}>${entry.name}</a></td>
                    <td class="num">${count(entry.steps)}</td>
                    <td class="num">${entry.last_step ?? '–'}</td>
                    <td class="num">${count(entry.rollouts)}</td>
                    <td class="num">${fixed(entry.last_reward_mean, 4)}</td>
                    <td>${entry.updated_at ?? '–'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
