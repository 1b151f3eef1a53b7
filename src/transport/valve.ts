/** An open/closed flag that can be awaited: how the stdio pump and the call limiter hold. */
export interface Gate {
  readonly isOpen: boolean;
  /** Resolves at once when open, else when it next opens. */
  whenOpen(): Promise<void>;
}

export class Valve implements Gate {
  #open = true;
  #waiters: (() => void)[] = [];

  get isOpen(): boolean {
    return this.#open;
  }

  whenOpen(): Promise<void> {
    if (this.#open) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  set(open: boolean): void {
    if (open === this.#open) return;
    this.#open = open;
    if (!open) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
