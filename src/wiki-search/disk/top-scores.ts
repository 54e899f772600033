/**
 * The k best of many scored items without sorting them all: a min-heap of the k best so far (its root the worst of
 * them), so each further item costs one comparison unless it beats the root. Ties go to the smaller id, as a full
 * sort by (score descending, id ascending) would order them.
 */
export class TopScores {
  private readonly heapScores: Float64Array;
  private readonly heapIds: Float64Array;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.heapScores = new Float64Array(Math.max(1, capacity));
    this.heapIds = new Float64Array(Math.max(1, capacity));
  }

  offer(id: number, score: number): void {
    if (this.capacity <= 0) return;
    if (this.size < this.capacity) {
      this.heapScores[this.size] = score;
      this.heapIds[this.size] = id;
      this.size += 1;
      this.siftUp(this.size - 1);
    } else if (this.isWorse(this.heapScores[0] as number, this.heapIds[0] as number, score, id)) {
      this.heapScores[0] = score;
      this.heapIds[0] = id;
      this.siftDown(0);
    }
  }

  /** The kept items, best first. */
  sorted(): [id: number, score: number][] {
    const items: [number, number][] = [];
    for (let index = 0; index < this.size; index += 1) items.push([this.heapIds[index] as number, this.heapScores[index] as number]);
    return items.sort(([leftId, left], [rightId, right]) => right - left || leftId - rightId);
  }

  /** True when (score, id) ranks below (otherScore, otherId). */
  private isWorse(score: number, id: number, otherScore: number, otherId: number): boolean {
    return score < otherScore || (score === otherScore && id > otherId);
  }

  private isWorseAt(left: number, right: number): boolean {
    return this.isWorse(this.heapScores[left] as number, this.heapIds[left] as number, this.heapScores[right] as number, this.heapIds[right] as number);
  }

  private swap(left: number, right: number): void {
    const score = this.heapScores[left] as number;
    const id = this.heapIds[left] as number;
    this.heapScores[left] = this.heapScores[right] as number;
    this.heapIds[left] = this.heapIds[right] as number;
    this.heapScores[right] = score;
    this.heapIds[right] = id;
  }

  private siftUp(start: number): void {
    for (let child = start; child > 0;) {
      const parent = (child - 1) >> 1;
      if (!this.isWorseAt(child, parent)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(start: number): void {
    for (let parent = start; ;) {
      const left = 2 * parent + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const worse = right < this.size && this.isWorseAt(right, left) ? right : left;
      if (!this.isWorseAt(worse, parent)) return;
      this.swap(worse, parent);
      parent = worse;
    }
  }
}
