/**
 * Deadline timers a test fires by hand (the daemon client's `timers` option): what the client
 * scheduled, and for how long, can be read; nothing fires until the test says so, however long
 * the machine takes.
 */
import type { Timers } from "../../src/shared/signals.ts";
import { Watched } from "./watched.ts";

export interface Scheduled {
  id: number;
  ms: number;
  fire(): void;
}

export class ManualTimers implements Timers {
  #nextId = 1;
  readonly #pending = new Map<number, Scheduled>();
  readonly #watched = new Watched();

  setTimeout(fn: () => void, ms: number): number {
    const id = this.#nextId++;
    this.#pending.set(id, {
      id,
      ms,
      fire: () => {
        if (this.#pending.delete(id)) fn();
      },
    });
    this.#watched.changed();
    return id;
  }

  clearTimeout(id: unknown): void {
    this.#pending.delete(id as number);
  }

  /** Timers scheduled and neither fired nor cleared, oldest first. */
  get pending(): Scheduled[] {
    return [...this.#pending.values()];
  }

  /** The oldest pending timer of `ms` milliseconds (any when omitted), once there is one. */
  async next(ms?: number): Promise<Scheduled> {
    const find = () => this.pending.find((timer) => ms === undefined || timer.ms === ms);
    await this.#watched.when(() => find() !== undefined);
    return find()!;
  }
}
