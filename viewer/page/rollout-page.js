import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { SHOWN_ELSEWHERE, count, fixed, ms, num, rolloutHref, runHref } from './format.js';
import { html } from './html.js';

export function RolloutPage({ run, line }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setData(null);
    getJson('rollout', { run, line }).then(setData, (cause) => setError(cause.message));
  }, [run, line]);
  // j / k: the next / previous rollout of the run, as Harbor's viewer does.
  useEffect(() => {
    const onKey = (event) => {
      if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey) return;
      const total = data?.lines ?? Infinity;
      if (event.key === 'j' && line + 1 < total) location.hash = rolloutHref(run, line + 1);
      if (event.key === 'k' && line > 0) location.hash = rolloutHref(run, line - 1);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [run, line, data]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!data) return html`<p class="muted">loading rollout ${line}…</p>`;
  const { record } = data;
  const toolTimings = new Map((record.timing?.tool_calls ?? []).map((call) => [call.callId, call]));
  const toolErrors = new Map((record.events ?? []).filter((event) => event.type === 'tool-error').map((event) => [event.callId, event]));
  const turnTimes = new Map((record.events ?? []).filter((event) => event.type === 'model-response').map((event) => [event.turn, event.durationMs]));
  const tokensByTurn = new Map((record.tokens ?? []).map((tokens, index) => [tokens.turn ?? index + 1, tokens]));
  const toolResults = new Map(record.completion.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, message]));
  let turn = 0;
  return html`<section class="rollout" data-testid="rollout">
    <p><a href=${runHref(run)}>← ${run}</a> <span class="muted">rollout ${line + 1} of ${data.lines} · j / k for next / previous</span></p>
    <h1 data-testid="rollout-title">${record.example_id} <span class="muted">#${record.rollout_index}</span></h1>
    <div class="cards">
      <div class="card"><b data-testid="rollout-reward">${fixed(record.reward, 4)}</b>reward</div>
      ${Object.entries(record.metrics ?? {})
        .filter(([name]) => !SHOWN_ELSEWHERE.has(name))
        .map(([name, value]) => html`<div class="card"><b data-metric=${name}>${num(value, 4)}</b>${name}</div>`)}
      <div class="card"><b data-testid="rollout-turns">${record.turns}</b>turns</div>
      <div class="card">
        <b>${ms(record.timing?.total_ms)}</b>total (${ms(record.timing?.generation_ms)} generation, ${ms(record.timing?.scoring_ms)} scoring)
      </div>
      <div class="card">
        <b data-testid="rollout-tokens">${record.usage ? count(record.usage.prompt_tokens + record.usage.completion_tokens) : '–'}</b>tokens${
          record.usage ? html`<span class="muted">${count(record.usage.prompt_tokens)} prompt, ${count(record.usage.completion_tokens)} completion</span>` : ''
        }
      </div>
      ${record.truncated ? html`<div class="card"><b>yes</b>truncated</div>` : ''}
    </div>
    ${
      record.error
        ? html`<div class="error-box" data-testid="rollout-error">
            <b>${record.error.code}</b> (${record.error.boundary}${record.error.transient ? ', transient' : ''}): ${record.error.message}
          </div>`
        : ''
    }
    <h2>Conversation</h2>
    <div class="conversation">
      ${record.prompt.map((message) => html`<${Message} message=${message} />`)}
      ${record.completion
        .filter((message) => message.role !== 'tool')
        .map((message) => {
          if (message.role === 'assistant') turn++;
          return html`<${Message}
            message=${message}
            turn=${message.role === 'assistant' ? turn : null}
            turnMs=${turnTimes.get(turn)}
            tokens=${message.role === 'assistant' ? tokensByTurn.get(turn) : null}
            toolResults=${toolResults}
            toolTimings=${toolTimings}
            toolErrors=${toolErrors}
          />`;
        })}
    </div>
    ${
      record.final_answer !== null && record.final_answer !== undefined
        ? html`<h2>Final answer</h2>
            <pre class="answer" data-testid="final-answer">${record.final_answer}</pre>
            <${GoldAnswers} record=${record} />`
        : ''
    }
    ${
      Object.keys(data.texts).length > 0
        ? html`<h2>Verifier</h2>
            ${Object.entries(data.texts).map(
              ([path, text]) =>
                html`<h3>${path}</h3>
                  <pre class="log" data-testid="verifier-text">${text}</pre>`,
            )}`
        : ''
    }
    ${
      data.files.length > 0
        ? html`<h2>Trial files</h2>
            <${FileList} run=${run} files=${data.files} />`
        : ''
    }
    ${
      data.session_log
        ? html`<h2>Session log</h2>
            <pre class="log" data-testid="session-log">${data.session_log}</pre>`
        : ''
    }
    <details>
      <summary>info</summary>
      <pre>${JSON.stringify(record.info, null, 2)}</pre>
    </details>
  </section>`;
}

function Message({ message, turn, turnMs, tokens, toolResults, toolTimings, toolErrors }) {
  return html`<div class=${`message role-${message.role}`} data-role=${message.role}>
    <div class="role">${message.role}${turn ? html` <span class="muted">turn ${turn}${turnMs !== undefined ? ` · ${ms(turnMs)}` : ''}</span>` : ''}</div>
    ${
      message.reasoning_content
        ? html`<details class="reasoning">
            <summary>reasoning</summary>
            <pre>${message.reasoning_content}</pre>
          </details>`
        : ''
    }
    ${message.content ? html`<pre class="content">${message.content}</pre>` : ''}
    ${logprobsOf(tokens)?.length ? html`<${LogprobStrip} tokens=${tokens} />` : ''}
    ${(message.tool_calls ?? []).map((call) => {
      const result = toolResults?.get(call.id);
      const timing = toolTimings?.get(call.id);
      const failure = toolErrors?.get(call.id);
      const failed = failure || timing?.isError;
      return html`<div class=${`tool-call ${failed ? 'tool-failed' : ''}`} data-testid="tool-call">
        <div class="role">tool call <b>${call.function.name}</b> ${timing ? html`<span class="muted">${ms(timing.durationMs)}</span>` : ''}</div>
        <pre class="args">${prettyArguments(call.function.arguments)}</pre>
        ${
          result
            ? html`<div class="role">result${timing?.isError ? ' (error)' : ''}</div>
                <${ToolResult} content=${result.content} />`
            : ''
        }
        ${failure ? html`<div class="error-box">${failure.code}: ${failure.message}</div>` : ''}
      </div>`;
    })}
  </div>`;
}

/** Records before the snake_case rename spelled the token fields in camelCase; old runs still show their logprobs. */
const logprobsOf = (tokens) => tokens?.completion_logprobs ?? tokens?.completionLogprobs;

// Every accepted answer: the dataset's list (info.answers, as wiki-search keeps them) or the answer itself.
function GoldAnswers({ record }) {
  const listed = Array.isArray(record.info?.answers) ? record.info.answers : Array.isArray(record.answer) ? record.answer : [record.answer];
  const answers = [...new Set(listed.map((answer) => (typeof answer === 'string' ? answer : JSON.stringify(answer))))];
  return html`<div class="muted" data-testid="gold-answers">
    gold${answers.length > 1 ? ` (${answers.length} accepted)` : ''}:
    ${answers.map((answer) => html`<span class="gold">${answer}</span>`)}
  </div>`;
}

const LONG_RESULT_CHARS = 1500;
const LONG_RESULT_LINES = 25;

// A long tool result (a whole page, a long listing) is folded to its head; the full text is a click away.
function ToolResult({ content }) {
  const text = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
  const lines = text.split('\n').length;
  if (text.length <= LONG_RESULT_CHARS && lines <= LONG_RESULT_LINES) return html`<pre class="result">${text}</pre>`;
  return html`<details class="long-result" data-testid="long-result">
    <summary><span class="muted">${`${count(text.length)} characters, ${count(lines)} lines: `}</span>${text.slice(0, 160)}…</summary>
    <pre class="result">${text}</pre>
  </details>`;
}

/** One cell per completion token, redder the less likely; hover shows the token id and its logprob. */
function LogprobStrip({ tokens }) {
  const logprobs = logprobsOf(tokens);
  const ids = tokens.completion_token_ids ?? tokens.completionTokenIds ?? [];
  const mean = logprobs.reduce((sum, value) => sum + value, 0) / logprobs.length;
  return html`<div class="logprobs" data-testid="logprob-strip" title=${`${logprobs.length} tokens, mean logprob ${mean.toFixed(3)}`}>
    ${logprobs.map((value, index) => {
      const p = Math.exp(value);
      return html`<span
        style=${`background: hsl(${Math.round(p * 120)}, 70%, 55%)`}
        title=${`token ${ids[index] ?? '?'} · logprob ${value.toFixed(3)} · p ${p.toFixed(3)}`}
      ></span>`;
    })}
  </div>`;
}

function FileList({ run, files }) {
  const [open, setOpen] = useState(null);
  const show = (path) =>
    getJson('file', { run, path }).then(
      (body) => setOpen(body),
      (cause) => setOpen({ path, text: cause.message }),
    );
  return html`<ul class="files" data-testid="trial-files">
      ${files.map(
        (file) =>
          html`<li>
            ${file.symlink ? html`<span title="symlink: not followed">${file.path} ↪</span>` : html`<a href="javascript:void 0" onClick=${() => show(file.path)}>${file.path}</a>`}
            <span class="muted">${count(file.bytes)} B</span>
          </li>`,
      )}
    </ul>
    ${
      open
        ? html`<h3>${open.path}${open.truncated ? ' (truncated)' : ''}</h3>
            <pre class="log" data-testid="file-text">${open.text}</pre>`
        : ''
    }`;
}

function prettyArguments(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
