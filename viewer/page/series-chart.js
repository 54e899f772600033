// Line charts over training steps (uPlot): a series' curves, with an optional band (mean ± std) drawn as a fill.
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';

const COLOURS = ['#2a6fdb', '#d9822b', '#2e9e5b', '#b8336a'];

/**
 * lines: [{label, values}] over steps (null = no point); band: {label, lower, upper} filled behind the lines;
 * range: a fixed [min, max] for the y axis (a share), else uPlot's own.
 */
export function StepChart({ title, steps, lines, band, range, testId, format = (value) => value }) {
  const box = useRef(null);
  useEffect(() => {
    if (!box.current || steps.length === 0) return undefined;
    const data = [steps, ...lines.map((line) => line.values)];
    const series = [
      { label: 'step' },
      ...lines.map((line, index) => ({ label: line.label, stroke: COLOURS[index % COLOURS.length], width: 2, points: { show: steps.length < 60 } })),
    ];
    const options = {
      width: box.current.clientWidth || 420,
      height: 200,
      // A key, not a readout: the values are in the cards and the rollouts.
      legend: { show: lines.length > 1 || Boolean(band), live: false },
      scales: { x: { time: false }, ...(range ? { y: { range: () => range } } : {}) },
      axes: [
        { label: 'step', size: 40 },
        { size: 60, values: (_plot, ticks) => ticks.map(format) },
      ],
      series,
    };
    if (band) {
      data.push(band.lower, band.upper);
      const fill = 'rgba(42,111,219,0.18)';
      series.push(
        { label: band.label, stroke: fill, fill, points: { show: false } },
        { label: `${band.label} (upper)`, stroke: fill, points: { show: false } },
      );
      const [lower, upper] = [series.length - 2, series.length - 1];
      options.bands = [{ series: [upper, lower], fill }];
    }
    const plot = new uPlot(options, data, box.current);
    return () => plot.destroy();
  }, [steps, lines, band, range]);
  return html`<figure class="chart" data-testid=${testId}>
    <figcaption>${title}</figcaption>
    ${steps.length === 0 ? html`<div class="muted">no steps yet</div>` : html`<div ref=${box}></div>`}
  </figure>`;
}
