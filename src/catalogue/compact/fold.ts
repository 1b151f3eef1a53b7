/**
 * Small, exact folding steps the record compactors are built from. Each step removes a
 * value only when the documented rule gives it back unchanged, so a compact result always
 * expands to the daemon's answer.
 */
export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
}

/** Drops each listed field whose value is null (absent then means null). */
export function dropNulls(record: Json, fields: readonly string[]): void {
  for (const field of fields) if (record[field] === null) delete record[field];
}

/** Drops each listed field whose value is an empty array (absent then means empty). */
export function dropEmpty(record: Json, fields: readonly string[]): void {
  for (const field of fields) {
    const value = record[field];
    if (Array.isArray(value) && value.length === 0) delete record[field];
  }
}

/** Drops `field` when it equals `implied` (what the documented rule gives back). */
export function dropIf(record: Json, field: string, implied: unknown): void {
  if (Object.hasOwn(record, field) && implied !== undefined && same(record[field], implied)) {
    delete record[field];
  }
}

/**
 * One result's process table: a fingerprint `{pid, parentPid, …}` appears once, keyed by
 * pid without its pid, and every place that carried it refers to it by pid. A pid whose
 * fingerprints differ within one result keeps the later ones inline.
 */
export class Processes {
  readonly table: Record<string, Json> = {};

  /** Files the fingerprint and says whether it may be left out where it was. */
  fold(fingerprint: unknown): boolean {
    if (!isObject(fingerprint) || typeof fingerprint.pid !== "number") return false;
    const { pid, ...rest } = fingerprint;
    const key = String(pid);
    const filed = this.table[key];
    if (filed === undefined) {
      this.table[key] = rest;
      return true;
    }
    return same(filed, rest);
  }

  /** The table at the root of `data`, when anything was filed. */
  attach(data: Json): Json {
    return Object.keys(this.table).length > 0 ? { ...data, processes: this.table } : data;
  }
}

/** A shallow copy that the compactors may edit freely. */
export const copy = (value: unknown): Json => ({ ...(value as Json) });
