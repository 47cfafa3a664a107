/**
 * A value built from disk on first use and then kept in memory. A failed build is forgotten, so the
 * next call tries again instead of repeating the old error forever.
 */
export class LazyLoad<T> {
  private pending: Promise<T> | null = null;

  constructor(private readonly build: () => Promise<T>) {}

  /** The value, building it on the first call (or on the first call after a failed build). */
  get(): Promise<T> {
    if (!this.pending) {
      const loading = this.build();
      this.pending = loading;
      loading.catch(() => {
        if (this.pending === loading) this.pending = null;
      });
    }
    return this.pending;
  }

  /** The value if a build has started, else `null`: writes keep a loaded copy current but never start a build. */
  started(): Promise<T> | null {
    return this.pending;
  }
}
