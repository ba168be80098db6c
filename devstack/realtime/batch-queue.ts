// What both NOTIFY relays (postgres_changes capture, broadcast from the database) do with
// announcements: queue them and hand them on in batches, one batch at a time, so every
// subscriber gets them in commit order. A failed batch is logged and the next one goes on.

export class BatchQueue<T> {
  private pending: T[] = [];
  private draining: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly maxBatch: number,
    private readonly handle: (batch: T[]) => Promise<void>,
    private readonly what: string,
  ) {}

  push(item: T): void {
    if (this.closed) return;
    this.pending.push(item);
    this.draining ??= this.drain();
  }

  /** Drops what is queued and waits for the batch in hand. */
  async close(): Promise<void> {
    this.closed = true;
    this.pending = [];
    await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.closed) {
        const batch = this.pending.splice(0, this.maxBatch);
        try {
          await this.handle(batch);
        } catch (error) {
          console.error(`[realtime] ${this.what} failed:`, error);
        }
      }
    } finally {
      this.draining = undefined;
    }
  }
}
