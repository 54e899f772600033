/** One benchmark figure. Every `corral bench ... --json` prints an array of these. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the same run measured for comparison (e.g. 'docker run', 'docker exec'). */
  peer?: string;
  peerValue?: number;
  /** For times: peerValue / value (above 1 = we are faster). For rates and quality: value / peerValue. */
  ratio?: number;
  /** Target from the issue, for the printed table (e.g. '<= 5'). */
  target?: string;
  /** Set when the figure could not be measured (value NaN): what failed. */
  error?: string;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const round = (value: number, digits = 3) => Number(value.toFixed(digits));

/** A ratio for the table: one decimal from 1 up; two significant digits below 1, where one decimal printed x0.02 as x0. */
export function ratioText(ratio: number): string {
  return `x${ratio >= 1 || ratio === 0 || !Number.isFinite(ratio) ? round(ratio, 1) : Number(ratio.toPrecision(2))}`;
}

/** Renders figures as an aligned text table for humans. */
export function formatFigures(figures: readonly Figure[]): string {
  const rows = figures.map((figure) => [
    figure.name,
    figure.error ? `failed: ${figure.error}` : `${round(figure.value)} ${figure.unit}`,
    figure.peer ? `${figure.peer}: ${round(figure.peerValue ?? Number.NaN)} ${figure.unit}` : '',
    figure.ratio === undefined ? '' : ratioText(figure.ratio),
    figure.target ?? '',
  ]);
  const header = ['figure', 'value', 'peer (same run)', 'ratio', 'target'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
