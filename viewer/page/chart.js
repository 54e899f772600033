// Histograms drawn by uPlot (bars), sized to their box; the server sends bins, never the 100,000 values.
import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';
import { count, num } from './format.js';
import { html } from './html.js';

export function HistogramChart({ histogram, label, testId }) {
  const box = useRef(null);
  useEffect(() => {
    if (!histogram || !box.current) return undefined;
    // One bin (every value equal): one bar at that value, on an axis around it, not bins numbered from it.
    const single = histogram.counts.length === 1;
    const width = single ? 1 : (histogram.max - histogram.min) / histogram.counts.length;
    const xs = single ? [histogram.min] : histogram.counts.map((_, i) => histogram.min + (i + 0.5) * width);
    const plot = new uPlot(
      {
        width: box.current.clientWidth || 360,
        height: 160,
        legend: { show: false },
        cursor: { show: true },
        scales: {
          x: single ? { time: false, range: () => [histogram.min - 1, histogram.min + 1] } : { time: false },
          y: { range: (_plot, _min, max) => [0, Math.max(1, max) * 1.05] },
        },
        axes: [{ size: 30 }, { size: 60 }],
        series: [{}, { label, stroke: '#2a6fdb', fill: 'rgba(42,111,219,0.35)', paths: uPlot.paths.bars({ size: [0.9, 60] }), points: { show: false } }],
      },
      [xs, histogram.counts],
      box.current,
    );
    return () => plot.destroy();
  }, [histogram, label]);
  if (!histogram) return html`<div class="muted">no scored rollouts</div>`;
  const range =
    histogram.min === histogram.max
      ? `(all ${num(histogram.min)}: ${count(histogram.counts[0])})`
      : `(${histogram.min.toFixed(3)} … ${histogram.max.toFixed(3)})`;
  return html`<figure class="chart" data-testid=${testId}>
    <figcaption>${label} <span class="muted" data-testid="histogram-range">${range}</span></figcaption>
    <div ref=${box}></div>
  </figure>`;
}
