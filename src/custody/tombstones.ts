/**
 * What custody keeps of a credential it erased because it lapsed (its TTL or deadline passed,
 * or a renewal failed for good): no secret, only why. A tombstone per handle lets the next use
 * of that handle say what happened, until custody would have ended anyway; a notice per
 * credential tells the holder once, on its next result. Both are bounded.
 */
import type { CredentialKind, Group, Lapsed, LauncherRenewal, RenewalFailure } from "./group.ts";

/** What remains of one erased credential's handle. */
interface Tombstone {
  kind: CredentialKind;
  id: string;
  failure: RenewalFailure;
  dropAt: number;
}

export class Tombstones {
  readonly #max: number;
  readonly #byHandle = new Map<string, Tombstone>();
  /** Lapses not yet reported to the holder. */
  #unreported: Lapsed[] = [];

  /** `max`: how many tombstones, and how many unreported lapses, are kept at most. */
  constructor(max: number) {
    this.#max = max;
  }

  /** Records that `group` lapsed with `failure`: a tombstone per handle and one notice. */
  bury<R extends LauncherRenewal>(group: Group<R>, failure: RenewalFailure): void {
    this.#unreported.push({ kind: group.kind, id: group.id, failure });
    if (this.#unreported.length > this.#max) this.#unreported.shift();
    for (const handle of group.entries.keys()) {
      this.#byHandle.set(handle, {
        kind: group.kind,
        id: group.id,
        failure,
        dropAt: group.custodyExpiresAt,
      });
    }
    while (this.#byHandle.size > this.#max) {
      this.#byHandle.delete(this.#byHandle.keys().next().value!);
    }
  }

  /** Forgets the tombstones whose credentials' custody would have ended by `now`. */
  prune(now: number): void {
    for (const [handle, tomb] of this.#byHandle) {
      if (tomb.dropAt <= now) this.#byHandle.delete(handle);
    }
  }

  /** Whether `handle` is still a tombstone's, so a new credential never gets it. */
  has(handle: string): boolean {
    return this.#byHandle.has(handle);
  }

  /** The tombstone of `handle`, when it was bound to `kind` (and `ownerId`); else nothing. */
  find(kind: CredentialKind, handle: string, ownerId?: string): Tombstone | undefined {
    const tomb = this.#byHandle.get(handle);
    if (tomb && tomb.kind === kind && (ownerId === undefined || tomb.id === ownerId)) return tomb;
    return undefined;
  }

  forget(handle: string): void {
    this.#byHandle.delete(handle);
  }

  /** Withdraws the notice of a lapse the holder is told of another way. */
  unreport(kind: CredentialKind, id: string): void {
    this.#unreported = this.#unreported.filter((l) => l.kind !== kind || l.id !== id);
  }

  /** The lapses since the last call, each reported once. */
  takeLapses(): Lapsed[] {
    const lapsed = this.#unreported;
    this.#unreported = [];
    return lapsed;
  }

  clear(): void {
    this.#byHandle.clear();
    this.#unreported = [];
  }
}
