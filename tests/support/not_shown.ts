/**
 * Reading a result's `notShown` as a model does. Its parts, joined by `; `, each name what the
 * result leaves out and where its value is:
 *
 * - `lease.claimId, run.claimId (= claim.id)`: where these are absent they hold the value at
 *   that path, read within the same list item and map entry (`items[].run.claimId (=
 *   items[].claim.id)`);
 * - `proposal.proposed (observed.current with proposal.updates applied)`;
 * - `items[].id, items[].payload of claim.* events (detail: full)`: `detail: "full"` returns them;
 * - `daemon.health.capabilities (portreeve_health)`: that tool shows it;
 * - `empty lists` (`empty maps`, `empty lists and maps`): every list (map) left out is empty;
 * - `{pid} (in processes)`: a fingerprint written `{pid}` is the one `processes` holds.
 *
 * The grammar is the one src/results/view.ts and src/results/compact/compactor.ts write;
 * nothing here reads those modules.
 */
import { isObject, type Json } from "../../src/shared/json.ts";

export type Stated =
  | { path: string; as: string }
  | { path: string; base: string; changes: string };

export interface Note {
  stated: Stated[];
  /** Paths (`items[].payload`) whose values `detail: "full"` shows. */
  shownWithDetail: string[];
  /** Paths whose values another tool shows, with that tool. */
  shownBy: { path: string; tool: string }[];
  /** Whether every list (map) the result leaves out is empty. */
  emptyLists: boolean;
  emptyMaps: boolean;
  /** Whether a fingerprint written `{pid}` is the one the result's `processes` holds. */
  byPid: boolean;
}

const SAME = /^(.+) \(= (\S+)\)$/;
const MERGED = /^(\S+) \((\S+) with (\S+) applied\)$/;
const DETAIL = /^(.+) \(detail: full\)$/;
const SHOWN_BY = /^(\S+) \((portreeve_[a-z_]+)\)$/;
const EMPTY = /^empty (lists|maps|lists and maps)$/;
const BY_PID = "{pid} (in processes)";

export function readNote(note: string | undefined): Note {
  const read: Note = {
    stated: [],
    shownWithDetail: [],
    shownBy: [],
    emptyLists: false,
    emptyMaps: false,
    byPid: false,
  };
  for (const part of note === undefined ? [] : note.split("; ")) {
    const same = SAME.exec(part);
    const merged = MERGED.exec(part);
    const detail = DETAIL.exec(part);
    const shownBy = SHOWN_BY.exec(part);
    const empty = EMPTY.exec(part);
    if (part === BY_PID) read.byPid = true;
    else if (empty) {
      read.emptyLists ||= empty[1] !== "maps";
      read.emptyMaps ||= empty[1] !== "lists";
    } else if (same) {
      for (const path of same[1].split(", ")) read.stated.push({ path, as: same[2] });
    } else if (merged) read.stated.push({ path: merged[1], base: merged[2], changes: merged[3] });
    else if (detail) {
      // Each name is a path, perhaps followed by words saying which of them (`… of X events`).
      read.shownWithDetail.push(...detail[1].split(", ").map((name) => name.split(" ")[0]));
    } else if (shownBy) read.shownBy.push({ path: shownBy[1], tool: shownBy[2] });
    else throw new Error(`notShown says what no reader can follow: ${JSON.stringify(part)}`);
  }
  return read;
}

/**
 * `data` with the fields its note says it states elsewhere put back where they are absent, a
 * value stated by another stated one after it (until nothing changes).
 */
export function restoreStated(data: Json, stated: readonly Stated[]): Json {
  const out = structuredClone(data);
  for (let round = 0; round <= stated.length; round++) {
    let changed = false;
    for (const entry of stated) {
      changed = ("as" in entry
        ? putSame(out, steps(entry.path), steps(entry.as))
        : putMerged(out, entry.path, entry.base, entry.changes)) || changed;
    }
    if (!changed) break;
  }
  return out;
}

/** `items[].run.claimId` → `["items[]", "run", "claimId"]`. */
const steps = (path: string) => path.split(".");

/** The values one step reaches: each item of a list (`x[]`), each value of a map (`*`). */
function reach(value: unknown, step: string): unknown[] {
  if (step === "*") return isObject(value) ? Object.values(value) : [];
  if (step.endsWith("[]")) {
    const list = isObject(value) ? value[step.slice(0, -2)] : undefined;
    return Array.isArray(list) ? list : [];
  }
  return isObject(value) && Object.hasOwn(value, step) ? [value[step]] : [];
}

/**
 * Puts the value at `as` where `path` is absent: the steps both share are walked together, so
 * `as` is read within the same list item or map entry as `path`.
 */
function putSame(node: unknown, path: string[], as: string[]): boolean {
  if (path.length > 1 && as.length > 1 && path[0] === as[0]) {
    return reach(node, path[0]).map((next) => putSame(next, path.slice(1), as.slice(1)))
      .some(Boolean);
  }
  const source = as.reduce<unknown[]>((values, step) => values.flatMap((v) => reach(v, step)), [
    node,
  ]);
  if (source.length !== 1) return false;
  return putWhereAbsent(node, path, source[0]);
}

function putWhereAbsent(node: unknown, path: string[], value: unknown): boolean {
  const [step, ...rest] = path;
  if (rest.length === 0) {
    if (!isObject(node) || Object.hasOwn(node, step)) return false;
    node[step] = structuredClone(value);
    return true;
  }
  return reach(node, step).map((next) => putWhereAbsent(next, rest, value)).some(Boolean);
}

function putMerged(data: Json, path: string, base: string, changes: string): boolean {
  const [under] = [base].flatMap((p) =>
    steps(p).reduce<unknown[]>(
      (values, step) => values.flatMap((v) => reach(v, step)),
      [data],
    )
  );
  const [over] = steps(changes).reduce<unknown[]>(
    (values, step) => values.flatMap((v) => reach(v, step)),
    [data],
  );
  if (!isObject(under) || !isObject(over)) return false;
  return putWhereAbsent(data, steps(path), { ...under, ...over });
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
