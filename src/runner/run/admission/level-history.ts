/**
 * The admission level over time, for metadata.json and the viewer: one point per change, at most `maxPoints`
 * (when full, every other point is dropped, so a long run keeps its whole shape at a coarser grain).
 */
export type LevelPoint = [elapsedS: number, level: number];

export class LevelHistory {
  private readonly points: LevelPoint[] = [];

  constructor(
    private readonly startedAtMs: number,
    private readonly maxPoints = 512,
  ) {}

  record(nowMs: number, level: number): void {
    const elapsedS = Math.round(nowMs - this.startedAtMs) / 1000;
    const last = this.points.at(-1);
    if (last?.[1] === level) return;
    // Several changes within one millisecond keep the last.
    if (last && last[0] === elapsedS) last[1] = level;
    else this.points.push([elapsedS, level]);
    if (this.points.length > this.maxPoints) {
      const kept = this.points.filter((_, index) => index % 2 === 0 || index === this.points.length - 1);
      this.points.splice(0, this.points.length, ...kept);
    }
  }

  toJSON(): LevelPoint[] {
    return this.points.map(([elapsedS, level]) => [elapsedS, level]);
  }
}
