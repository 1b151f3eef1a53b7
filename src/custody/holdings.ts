/**
 * The credentials custody holds: each group under its kind and id and under each of its
 * handles (minted here), a second hold of an id replacing the first, and erasure (settled,
 * lapsed, replaced, closed), which unregisters a group, stops its timers and its renewal and
 * forgets its secrets. Keeping a group alive is upkeep.ts's work; what remains of one that
 * lapsed, tombstones.ts's.
 */
import type { Clock } from "./clock.ts";
import { CredentialUnavailableError, CustodyClosedError, HandleCollisionError } from "./errors.ts";
import { newHandle, type RandomFill } from "./handle.ts";
import {
  type CredentialKind,
  type CustodyEvent,
  type Entry,
  type ErasedReason,
  type Group,
  keyOf,
  type LauncherRenewal,
  type NewEntry,
  soonestExpiry,
} from "./group.ts";
import type { Tombstones } from "./tombstones.ts";

interface HoldingsOptions {
  clock: Clock;
  /** Custody's length from acquisition before any extension, and its ceiling. */
  defaultMs: number;
  maximumMs: number;
  fill: RandomFill;
  /** A handle a tombstone still explains is never minted again. */
  tombstones: Tombstones;
  onEvent?: (event: CustodyEvent) => void;
}

export class Holdings<R extends LauncherRenewal> {
  readonly #clock: Clock;
  readonly #defaultMs: number;
  readonly #maximumMs: number;
  readonly #fill: RandomFill;
  readonly #tombstones: Tombstones;
  readonly #onEvent?: (event: CustodyEvent) => void;
  readonly #groups = new Map<string, Group<R>>();
  readonly #handles = new Map<string, Group<R>>();
  #closed = false;

  constructor(options: HoldingsOptions) {
    this.#clock = options.clock;
    this.#defaultMs = options.defaultMs;
    this.#maximumMs = options.maximumMs;
    this.#fill = options.fill;
    this.#tombstones = options.tombstones;
    this.#onEvent = options.onEvent;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Number of credentials held. */
  get size(): number {
    let count = 0;
    for (const group of this.#groups.values()) count += group.entries.size;
    return count;
  }

  /** The groups held now, as a list that erasing one of them leaves unchanged. */
  all(): Group<R>[] {
    return [...this.#groups.values()];
  }

  byId(kind: CredentialKind, id: string): Group<R> | undefined {
    return this.#groups.get(keyOf(kind, id));
  }

  byHandle(handle: string): Group<R> | undefined {
    return this.#handles.get(handle);
  }

  /** Whether `group` is still the one held for its id (not erased, replaced or closed). */
  isLive(group: Group<R>): boolean {
    return !this.#closed && this.#groups.get(keyOf(group.kind, group.id)) === group;
  }

  /**
   * Holds a new group: a handle for each credential, custody from now. A group held before
   * for the same id is erased (the daemon issued new secrets; the old ones are dead). Its
   * timers are upkeep's to arm.
   */
  insert(kind: CredentialKind, id: string, items: NewEntry[], renewAfterMs: number): Group<R> {
    if (this.#closed) throw new CustodyClosedError();
    const now = this.#clock.now();
    const group: Group<R> = {
      kind,
      id,
      entries: new Map(),
      acquiredAt: now,
      custodyExpiresAt: now + this.#defaultMs,
      maximumCustodyExpiresAt: now + this.#maximumMs,
      renewAfterMs,
      ttlMs: 1,
    };
    // Built completely before registration, so a collision leaves nothing behind.
    for (const item of items) {
      const handle = this.#mintHandle(group);
      group.entries.set(handle, { handle, ...item });
    }
    group.ttlMs = Math.max(1, soonestExpiry(group) - now);
    const previous = this.#groups.get(keyOf(kind, id));
    if (previous) this.#drop(previous, new CredentialUnavailableError());
    this.#groups.set(keyOf(kind, id), group);
    for (const handle of group.entries.keys()) this.#handles.set(handle, group);
    return group;
  }

  /** Erases the credentials `gone` of a group (settled), and the group once none is left. */
  release(group: Group<R>, gone: readonly Entry[]): void {
    for (const entry of gone) {
      this.#handles.delete(entry.handle);
      entry.secret = "";
      group.entries.delete(entry.handle);
    }
    if (group.entries.size === 0) {
      this.erase(group, "settled", gone.length);
    } else if (gone.length > 0) {
      const credentialCount = gone.length;
      const { kind, id } = group;
      this.emit({ type: "erased", kind, id, credentialCount, reason: "settled" });
    }
  }

  erase(group: Group<R>, reason: ErasedReason, credentialCount = group.entries.size): void {
    this.#drop(group, new CredentialUnavailableError());
    this.emit({ type: "erased", kind: group.kind, id: group.id, credentialCount, reason });
  }

  /**
   * Erases everything and aborts every renewal in flight; resolves once those have settled.
   * Nothing is held afterwards.
   */
  close(): Promise<void> {
    this.#closed = true;
    const inflight: Promise<unknown>[] = [];
    for (const group of this.all()) {
      if (group.inflight) inflight.push(group.inflight);
      this.#drop(group, new CustodyClosedError());
    }
    return Promise.allSettled(inflight).then(() => {});
  }

  emit(event: CustodyEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // Logging must never break custody.
    }
  }

  #mintHandle(group: Group<R>): string {
    for (let attempt = 0; attempt < 4; attempt++) {
      const handle = newHandle(this.#fill);
      const taken = this.#handles.has(handle) || this.#tombstones.has(handle) ||
        group.entries.has(handle);
      if (!taken) return handle;
    }
    throw new HandleCollisionError();
  }

  /** Unregisters a group, stops its timers, aborts its renewal and forgets its secrets. */
  #drop(group: Group<R>, reason: Error): void {
    if (this.#groups.get(keyOf(group.kind, group.id)) === group) {
      this.#groups.delete(keyOf(group.kind, group.id));
    }
    if (group.renewTimer !== undefined) this.#clock.clearTimeout(group.renewTimer);
    if (group.expiryTimer !== undefined) this.#clock.clearTimeout(group.expiryTimer);
    if (group.lateTimer !== undefined) this.#clock.clearTimeout(group.lateTimer);
    group.renewTimer = group.expiryTimer = group.lateTimer = undefined;
    group.controller?.abort(reason);
    for (const entry of group.entries.values()) {
      if (this.#handles.get(entry.handle) === group) this.#handles.delete(entry.handle);
      // Strings cannot be zeroed in JS; dropping every reference is the best available.
      entry.secret = "";
    }
    group.entries.clear();
  }
}
