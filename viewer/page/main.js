// The viewer page: a hash router over six pages (runs, run, rollout, compare, series list, series), Preact components written with htm.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ComparePage } from './compare-page.js';
import { html } from './html.js';
import { RolloutPage } from './rollout-page.js';
import { RunPage } from './run-page.js';
import { RunsPage } from './runs-page.js';
import { SeriesListPage, SeriesPage } from './series-page.js';

const route = () => {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'run' && parts[1]) return { page: 'run', run: parts[1] };
  if (parts[0] === 'rollout' && parts[1] && parts[2]) return { page: 'rollout', run: parts[1], line: Number(parts[2]) };
  if (parts[0] === 'compare' && parts[1] && parts[2]) return { page: 'compare', a: parts[1], b: parts[2] };
  if (parts[0] === 'series') return parts[1] ? { page: 'series', name: parts[1] } : { page: 'series-list' };
  return { page: 'runs' };
};

function App() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const onHash = () => {
      setCurrent(route());
      scrollTo(0, 0);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  let page;
  if (current.page === 'run') page = html`<${RunPage} key=${current.run} run=${current.run} />`;
  else if (current.page === 'rollout') page = html`<${RolloutPage} run=${current.run} line=${current.line} />`;
  else if (current.page === 'compare') page = html`<${ComparePage} a=${current.a} b=${current.b} />`;
  else if (current.page === 'series') page = html`<${SeriesPage} key=${current.name} name=${current.name} />`;
  else if (current.page === 'series-list') page = html`<${SeriesListPage} />`;
  else page = html`<${RunsPage} />`;
  return html`<header><a href="#/">corral view</a> <a href="#/series">series</a></header>
    <main>${page}</main>`;
}

render(html`<${App} />`, document.getElementById('app'));
