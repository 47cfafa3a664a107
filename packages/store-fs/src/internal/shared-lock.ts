interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

interface Holders {
  shared: number;
  exclusive: boolean;
  waiting: Waiter[];
}

/**
 * A per-key lock with shared and exclusive holders, within one process: any number of shared holders run
 * together, an exclusive holder runs alone. Waiters are served in arrival order (a shared call arriving after a
 * waiting exclusive one waits behind it), so a stream of shared holders never starves an exclusive one.
 * Entries are dropped when a key goes idle.
 */
export class KeyedSharedLock {
  private readonly keys = new Map<string, Holders>();

  /** Runs `work` alongside other shared holders of `key`, never alongside an exclusive one. */
  shared<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.run(key, false, work);
  }

  /** Runs `work` while nothing else holds `key`. */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.run(key, true, work);
  }

  private async run<T>(key: string, exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await this.acquire(key, exclusive);
    try {
      return await work();
    } finally {
      this.release(key, exclusive);
    }
  }

  private acquire(key: string, exclusive: boolean): Promise<void> {
    let holders = this.keys.get(key);
    if (!holders) this.keys.set(key, (holders = { shared: 0, exclusive: false, waiting: [] }));
    if (holders.waiting.length === 0 && !holders.exclusive && (!exclusive || holders.shared === 0)) {
      if (exclusive) holders.exclusive = true;
      else holders.shared++;
      return Promise.resolve();
    }
    const queue = holders.waiting;
    return new Promise((grant) => queue.push({ exclusive, grant }));
  }

  private release(key: string, exclusive: boolean): void {
    const holders = this.keys.get(key)!;
    if (exclusive) holders.exclusive = false;
    else holders.shared--;
    while (holders.waiting.length > 0 && !holders.exclusive) {
      const next = holders.waiting[0]!;
      if (next.exclusive) {
        if (holders.shared > 0) break;
        holders.exclusive = true;
      } else holders.shared++;
      holders.waiting.shift();
      next.grant();
    }
    if (!holders.exclusive && holders.shared === 0 && holders.waiting.length === 0) this.keys.delete(key);
  }
}
