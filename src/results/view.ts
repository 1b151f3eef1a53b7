/**
 * A tool's default view: what its result leaves out beyond what the compactor leaves out, as
 * declared in the tool's definition. A field is left out only where it is not empty, and the
 * result then says so itself, once, in its `notShown`: plain words naming each field (its path
 * in `data`, `[]` after a list) and where to find its value:
 *
 * - `stack.definition, stack.currentRevision (detail: full)`: fields an agent
 *   rarely acts on, on tools that offer `detail: "full"`, which returns them;
 * - `observed.stack.definition (= proposal.definition)`: a value the same result states at
 *   another path;
 * - `daemon.health.capabilities (portreeve_health)`: a field the tool named shows;
 * - `proposal.proposed (observed.current with proposal.updates applied)`: a record the same
 *   result states as another with changes over it.
 *
 * Parts are joined by `; `. Nothing is ever left out without its words in the result.
 */
import { isObject, type Json } from "../shared/json.ts";
import { same } from "./compact/schema_nodes.ts";
import { NOTE_WORDS } from "./compact/compactor.ts";

/** A field's path in a tool's data: keys joined by dots, `[]` after a list (`items[].id`). */
type FieldPath = string;

/** A rarely used field left out only where the record holding it meets `when`. */
interface RareWhere {
  path: FieldPath;
  /** Of the record holding the field. */
  when: (record: Json) => boolean;
  /** Which records those are, in words following the path (`of claim.* events`). */
  which: string;
}

export interface ResultView {
  /** Fields an agent rarely acts on; only tools that offer `detail: "full"` leave them out. */
  rare?: readonly (FieldPath | RareWhere)[];
  /** Fields left out where they hold the same value as the field at `as`. */
  same?: readonly { path: FieldPath; as: FieldPath }[];
  /** Records left out where they equal the record at `base` with the one at `changes` over it. */
  merged?: readonly { path: FieldPath; base: FieldPath; changes: FieldPath }[];
  /** Fields left out wherever they have a value, which the tool named shows. */
  shownBy?: readonly { path: FieldPath; tool: string }[];
}

/** The result's field that says what its view left out. */
export const NOT_SHOWN = "notShown";

/** The data with what `view` leaves out taken out, and the words that say so (if any). */
export function applyView(
  view: ResultView | undefined,
  data: unknown,
): { data: unknown; note?: string } {
  if (view === undefined || !isObject(data)) return { data };
  const out = structuredClone(data);
  const parts: string[] = [];
  for (const { path, as } of view.same ?? []) {
    const value = valueAt(out, as);
    if (!isEmpty(value) && same(valueAt(out, path), value) && takeOut(out, path)) {
      parts.push(`${path} (${NOTE_WORDS.sameAs(as)})`);
    }
  }
  for (const { path, base, changes } of view.merged ?? []) {
    const [over, under] = [valueAt(out, changes), valueAt(out, base)];
    if (!isObject(over) || !isObject(under)) continue;
    if (same(valueAt(out, path), { ...under, ...over }) && takeOut(out, path)) {
      parts.push(`${path} (${base} with ${changes} applied)`);
    }
  }
  for (const { path, tool } of view.shownBy ?? []) {
    if (leaveOut(out, path.split("."), all)) parts.push(`${path} (${tool})`);
  }
  const rare = (view.rare ?? []).map((entry) => typeof entry === "string" ? { path: entry } : entry)
    .filter((entry) => leaveOut(out, entry.path.split("."), "when" in entry ? entry.when : all))
    .map((entry) => "which" in entry ? `${entry.path} ${entry.which}` : entry.path);
  if (rare.length > 0) {
    parts.push(`${rare.join(", ")} (detail: full)`);
  }
  return parts.length === 0 ? { data: out } : { data: out, note: parts.join("; ") };
}

const all = () => true;

/** null, [] and {}: what the compactor leaves out anyway, with no words needed. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** The value at a path without lists (`observed.stack.definition`). */
function valueAt(data: Json, path: FieldPath): unknown {
  return path.split(".").reduce<unknown>(
    (value, key) => (isObject(value) ? value[key] : undefined),
    data,
  );
}

/** Takes the field at a path without lists out of `data`; whether there was one. */
function takeOut(data: Json, path: FieldPath): boolean {
  const keys = path.split(".");
  const last = keys.pop()!;
  const holder = keys.length === 0 ? data : valueAt(data, keys.join("."));
  if (!isObject(holder) || !Object.hasOwn(holder, last)) return false;
  delete holder[last];
  return true;
}

/**
 * Takes every non-empty field at `keys` (`items[]` steps into each item of a list) out of the
 * records under `value` that meet `when`; whether any was taken.
 */
function leaveOut(
  value: unknown,
  keys: readonly string[],
  when: (record: Json) => boolean,
): boolean {
  if (!isObject(value) || keys.length === 0) return false;
  const [key, ...rest] = keys;
  if (key.endsWith("[]")) {
    const list = value[key.slice(0, -2)];
    if (!Array.isArray(list)) return false;
    let taken = false;
    for (const item of list) taken = leaveOut(item, rest, when) || taken;
    return taken;
  }
  if (rest.length > 0) return leaveOut(value[key], rest, when);
  if (!Object.hasOwn(value, key) || isEmpty(value[key]) || !when(value)) return false;
  delete value[key];
  return true;
}
