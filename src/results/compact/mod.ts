/**
 * Compact results: every tool's `data` is compacted along the output schema tools/list serves
 * for it (./compactor.ts), leaving out only what the result itself still says, after the
 * tool's default view (../view.ts) took out what its definition declares and wrote the
 * result's `notShown`. The catalogue applies this after the data was checked against its full
 * shape and before the result is built. `detail: "full"` (on the tools whose definition offers
 * it) returns the daemon's records whole instead.
 */
import { compact } from "./compactor.ts";
import { applyView, NOT_SHOWN, type ResultView } from "../view.ts";
import type { Defs, Schema } from "./schema_nodes.ts";
import { isObject } from "../../shared/json.ts";

/** The `data` node of a tool's advertised output schema, with the `$defs` it refers to. */
export interface DataSchema {
  data: Schema;
  defs: Defs;
}

/** The data schema inside an advertised output schema; undefined when it declares none. */
export function dataSchemaOf(outputSchema: unknown): DataSchema | undefined {
  if (!isObject(outputSchema)) return undefined;
  const properties = outputSchema.properties;
  if (!isObject(properties) || !isObject(properties.data)) return undefined;
  const defs = isObject(outputSchema.$defs) ? outputSchema.$defs as Defs : {};
  return { data: properties.data, defs };
}

/**
 * The compact form of a tool's data in its default view (as sent when the tool advertises no
 * data schema).
 */
export function compactData(
  schema: DataSchema | undefined,
  data: unknown,
  view?: ResultView,
): unknown {
  if (schema === undefined) return data;
  const { data: viewed, note } = applyView(view, data);
  const compacted = compact(schema.data, schema.defs, viewed, { notedAlready: note !== undefined });
  const parts = [...(note === undefined ? [] : [note]), ...compacted.parts];
  return parts.length === 0 || !isObject(compacted.data)
    ? compacted.data
    : { ...compacted.data, [NOT_SHOWN]: parts.join("; ") };
}

/**
 * How many bytes of JSON one page item adds to a compact page of a tool with this schema: the
 * item compacted alone, with the process entries it brings. Alone it is never smaller than
 * within its page.
 */
export function compactItemBytes(
  schema: DataSchema | undefined,
  view?: ResultView,
  /** Bytes of a value as the host shows it (default: its JSON, once). */
  bytes: (value: unknown) => number = jsonBytes,
): (item: unknown) => number {
  // The page's note is the page's, said once: an item is measured without it, with every
  // omission a long page makes (the page's own words are paid for by PAGE_ROOM).
  const shown = (items: unknown[]) => {
    if (schema === undefined) return bytes({ items, page: {} });
    const { data } = applyView(view, { items, page: {} });
    return bytes(compact(schema.data, schema.defs, data, { everyOmission: true }).data);
  };
  // Only paged tools measure items; the others never pay for the empty page.
  let empty: number | undefined;
  return (item) => shown([item]) - (empty ??= shown([]));
}

const utf8 = new TextEncoder();

/** Bytes of `value` as JSON (what a host counts), not UTF-16 units. */
export function jsonBytes(value: unknown): number {
  return utf8.encode(JSON.stringify(value)).length;
}
