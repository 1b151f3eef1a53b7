/**
 * Reading a result's `notShown` as a model does: the words name each field left out, and say
 * where the same result states it (`the same as <path>`, `<path> with <path> applied`) or that
 * `detail: "full"` shows it. The grammar is the one src/results/view.ts writes; nothing here
 * reads that module.
 */
import { isObject, type Json } from "../../src/shared/json.ts";

export type Stated =
  | { path: string; as: string }
  | { path: string; base: string; changes: string };

export interface Note {
  stated: Stated[];
  /** Paths (`items[].payload`) whose values `detail: "full"` shows. */
  shownWithDetail: string[];
}

const SAME = /^(\S+) \(the same as (\S+)\)$/;
const MERGED = /^(\S+) \((\S+) with (\S+) applied\)$/;
const DETAIL = /^(.+) \(detail: "full" shows (?:them|it)\)$/;

export function readNote(note: string | undefined): Note {
  const read: Note = { stated: [], shownWithDetail: [] };
  for (const part of note === undefined ? [] : note.split("; ")) {
    const same = SAME.exec(part);
    const merged = MERGED.exec(part);
    const detail = DETAIL.exec(part);
    if (same) read.stated.push({ path: same[1], as: same[2] });
    else if (merged) read.stated.push({ path: merged[1], base: merged[2], changes: merged[3] });
    else if (detail) {
      // Each name is a path, perhaps followed by words saying which of them (`… of X events`).
      read.shownWithDetail.push(...detail[1].split(", ").map((name) => name.split(" ")[0]));
    } else throw new Error(`notShown says what no reader can follow: ${JSON.stringify(part)}`);
  }
  return read;
}

/** `data` with the fields its note says it states elsewhere put back. */
export function restoreStated(data: Json, stated: readonly Stated[]): Json {
  const out = structuredClone(data);
  for (const entry of stated) {
    const value = "as" in entry
      ? at(out, entry.as)
      : { ...at(out, entry.base) as Json, ...at(out, entry.changes) as Json };
    put(out, entry.path, structuredClone(value));
  }
  return out;
}

function at(data: Json, path: string): unknown {
  return path.split(".").reduce<unknown>(
    (value, key) => (isObject(value) ? value[key] : undefined),
    data,
  );
}

function put(data: Json, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop()!;
  const holder = at(data, keys.join("."));
  if (keys.length > 0 && !isObject(holder)) throw new Error(`nowhere to put ${path}`);
  (keys.length === 0 ? data : holder as Json)[last] = value;
}

/** How `shown` (a result expanded) differs from `whole` (the daemon's records). */
export interface Difference {
  /** Paths (`items[].payload`) of fields `whole` has and `shown` lacks. */
  missing: Set<string>;
  /** Every other difference, described. */
  other: string[];
}

export function differences(whole: unknown, shown: unknown, path = ""): Difference {
  const found: Difference = { missing: new Set(), other: [] };
  const visit = (a: unknown, b: unknown, at: string) => {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) found.other.push(`${at}: ${a.length} items, shown ${b.length}`);
      else a.forEach((item, i) => visit(item, b[i], `${at}[]`));
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const key of Object.keys(a)) {
        const inner = at === "" ? key : `${at}.${key}`;
        if (!Object.hasOwn(b, key)) found.missing.add(inner);
        else visit(a[key], b[key], inner);
      }
      for (const key of Object.keys(b)) {
        if (!Object.hasOwn(a, key)) found.other.push(`${at}.${key}: not in the records`);
      }
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      found.other.push(
        `${at}: ${JSON.stringify(a)?.slice(0, 80)} shown as ${JSON.stringify(b)?.slice(0, 80)}`,
      );
    }
  };
  visit(whole, shown, path);
  return found;
}
