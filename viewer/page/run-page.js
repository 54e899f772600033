import { useEffect, useState } from 'preact/hooks';
import { getJson, subscribe } from './api.js';
import { HistogramChart } from './chart.js';
import { count, fixed, ms, num } from './format.js';
import { html } from './html.js';
import { RolloutTable } from './rollout-table.js';

export function RunPage({ run }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    getJson('run', { run }).then(setData, (cause) => setError(cause.message));
  }, [run, version]);
  // Live: each `rollouts` event (results.jsonl grew, or the status changed) reloads the summary and the table page.
  useEffect(() => subscribe('events', { run }, (event) => event === 'rollouts' && setVersion((value) => value + 1)), [run]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!data) return html`<p class="muted">loading ${run}…</p>`;
  const { entry, metadata, statistics, bad_lines: badLines } = data;
  const summary = statistics.summary;
  const metricNames = Object.keys(statistics.metricHistograms);
  return html`<section>
    <h1>${run} <span class=${`status status-${entry.status}`} data-testid="run-status">${entry.status}</span></h1>
    <p class="muted">
      ${[entry.env, entry.agent, entry.model, entry.started_at, metadata?.rollouts_per_example ? `r = ${metadata.rollouts_per_example}` : null].filter(Boolean).join(' · ')}
    </p>
    ${
      badLines?.count > 0
        ? html`<div class="warning-box" data-testid="bad-lines">
            ${`${count(badLines.count)} line${badLines.count === 1 ? '' : 's'} of results.jsonl ${badLines.count === 1 ? 'is' : 'are'} not a rollout record and ${badLines.count === 1 ? 'is' : 'are'} left out: `}
            ${badLines.examples.map((bad) => html`<div class="message">line ${bad.line}: ${bad.reason}</div>`)}
          </div>`
        : ''
    }
    ${metadata?.canaries ? html`<${Quarantine} canaries=${metadata.canaries} />` : ''}
    <div class="cards">
      <div class="card"><b data-testid="run-rollouts">${count(summary.rollouts)}</b>rollouts</div>
      <div class="card"><b data-testid="run-errored">${count(summary.errored)}</b>errored</div>
      <div class="card"><b data-testid="run-mean-reward">${fixed(summary.avg_reward, 4)}</b>mean reward</div>
      ${Object.entries(summary.passAtK ?? {}).map(([k, value]) => html`<div class="card"><b data-testid=${`run-pass-at-${k}`}>${fixed(value, 4)}</b>pass@${k}</div>`)}
      <div class="card"><b>${count(summary.truncated)}</b>truncated</div>
      <div class="card">
        <b data-testid="run-tokens">${summary.usage ? count(summary.usage.prompt_tokens + summary.usage.completion_tokens) : '–'}</b>tokens${
          summary.usage
            ? html`<span class="muted"
                >${`${count(summary.usage.prompt_tokens)} prompt (${count(summary.usage.cached_tokens ?? 0)} cached), ${count(summary.usage.completion_tokens)} completion`}</span
              >`
            : ''
        }
      </div>
      <div class="card"><b data-testid="run-turns">${num(statistics.turns.mean, 2)}</b>turns (mean; max ${statistics.turns.max})</div>
      <div class="card"><b>${count(statistics.toolCalls.total)}</b>tool calls</div>
      ${metadata?.admission ? html`<div class="card" data-testid="run-admission"><b>${count(metadata.admission.level)}</b>rollouts in flight allowed<span class="muted">${admissionText(metadata.admission)}</span></div>` : ''}
    </div>
    <div class="charts">
      <${HistogramChart} histogram=${statistics.rewardHistogram} label="reward" testId="reward-histogram" />
      ${metricNames.map((name) => html`<${HistogramChart} histogram=${statistics.metricHistograms[name]} label=${name} testId=${`metric-${name}`} />`)}
    </div>
    <div class="columns">
      <section>
        <h2>Errors</h2>
        ${
          Object.keys(statistics.errorExamples).length === 0
            ? html`<p class="muted">none</p>`
            : html`<p class="muted">
                  ${Object.entries(statistics.errorsByBoundary)
                    .map(([boundary, n]) => `${boundary}: ${n}`)
                    .join(' · ')}
                </p>
                <table class="grid" data-testid="errors-table">
                  <thead>
                    <tr>
                      <th>code</th>
                      <th>boundary</th>
                      <th>count</th>
                      <th>examples</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${Object.entries(statistics.errorExamples).map(
                      ([code, entry]) =>
                        html`<tr>
                          <td class="error-code">${code}</td>
                          <td>${entry.boundary}</td>
                          <td class="num">${entry.count}</td>
                          <td>${entry.messages.map((message) => html`<div class="message">${message}</div>`)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
        }
      </section>
      <section>
        <h2>Timing per phase</h2>
        <table class="grid" data-testid="timing-table">
          <thead>
            <tr>
              <th>phase</th>
              <th>p50</th>
              <th>p90</th>
              <th>p99</th>
              <th>max</th>
            </tr>
          </thead>
          <tbody>
            ${Object.entries(statistics.timingPercentiles).map(
              ([phase, p]) =>
                html`<tr>
                  <td>${phase.replace(/_ms$/, '')}</td>
                  <td class="num">${ms(p.p50)}</td>
                  <td class="num">${ms(p.p90)}</td>
                  <td class="num">${ms(p.p99)}</td>
                  <td class="num">${ms(p.max)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${
          statistics.groups
            ? html`<h2>Groups</h2>
                <p data-testid="groups">
                  ${`${count(statistics.groups.count)} examples · mean reward std ${fixed(statistics.groups.meanStd)} · ${count(statistics.groups.zeroVariance)} with one reward for every rollout (no GRPO signal) · ${count(statistics.groups.allErrored)} all errored`}
                </p>`
            : ''
        }
      </section>
    </div>
    <${RolloutTable} run=${run} metrics=${metricNames} version=${version} errorCodes=${Object.keys(statistics.errorExamples)} />
  </section>`;
}

/** Live canaries (corral eval --canaries): the examples quarantined because their oracle failed or their empty answer scored. */
function Quarantine({ canaries }) {
  const quarantined = canaries.quarantined ?? [];
  const head = `canaries at rate ${canaries.rate}: ${count(canaries.canaried_examples)} example${canaries.canaried_examples === 1 ? '' : 's'} checked, ${count(quarantined.length)} quarantined`;
  if (quarantined.length === 0) return html`<p class="muted" data-testid="quarantine">${head}</p>`;
  return html`<div class="warning-box" data-testid="quarantine">
    <div data-testid="quarantine-head">${head} (their rollouts ran and are flagged; canary rollouts are not in these numbers)</div>
    ${quarantined.map(
      (item) =>
        html`<div class="message" data-testid="quarantined-example" data-example=${item.example_id}>
          <b>${item.example_id}</b>: ${item.reasons.join(', ')} · oracle ${fixed(item.oracle_reward, 3)} · empty answer ${fixed(item.floor_reward, 3)}
        </div>`,
    )}
  </div>`;
}

/** The admission line of metadata.json: `auto, max 256, peak 49; cut by overload 3` (docs/admission.md). */
function admissionText(admission) {
  const cuts = Object.entries(admission.cuts ?? {}).map(([reason, times]) => `${reason} ${times}`);
  return `${admission.mode}, max ${count(admission.max)}, peak ${count(admission.peak_in_flight)}${cuts.length > 0 ? `; cut by ${cuts.join(', ')}` : ''}`;
}
