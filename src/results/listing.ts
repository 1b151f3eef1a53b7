/**
 * The served tools/list as data: what `deno task gen` writes into
 * src/catalogue/tools_list.json from the descriptions of the definitions (describe.ts), and
 * reads back, checked, when the catalogue loads. It imports no schema library, so start-up
 * loads nothing of the definitions.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { isJsonValue, isObject } from "../shared/json.ts";
import type { ToolKind } from "../shared/options.ts";

/**
 * One tools/list entry with what the bridge needs to know about it without loading it. Its
 * kind and capabilities are written from the definition by `deno task gen`; at run time the
 * listing is where the bridge reads them.
 */
export interface ListedTool {
  kind: ToolKind;
  capabilities: string[];
  tool: Tool;
}

export interface Annotations {
  readOnlyHint: boolean;
  /** Left out with `readOnlyHint: true`, which it then means nothing beside. */
  destructiveHint?: boolean;
  /** Likewise. */
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** What a listing's entry may be of each kind; a kind added to ToolKind must be added here. */
const KINDS: Record<ToolKind, true> = { read: true, mutation: true, preview: true, execute: true };

const isKind = (value: unknown): value is ToolKind =>
  typeof value === "string" && Object.hasOwn(KINDS, value);

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** What describe.ts writes: the two hints always, the other two beside a write. */
function isAnnotations(value: unknown): value is Annotations {
  if (!isObject(value)) return false;
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint, ...other } = value;
  const hint = (v: unknown) => v === undefined || typeof v === "boolean";
  return typeof readOnlyHint === "boolean" && typeof openWorldHint === "boolean" &&
    hint(destructiveHint) && hint(idempotentHint) && Object.keys(other).length === 0;
}

/**
 * The served listing read back from what `deno task gen` wrote (tools_list.json, imported as
 * data): each entry checked to be what `listTools` writes, as far as serving it relies on, so
 * no cast stands between the file and tools/list. Throws, naming the entry, on anything else.
 */
export function readListing(raw: unknown): ListedTool[] {
  if (!isObject(raw) || raw.version !== 1 || !Array.isArray(raw.tools)) {
    throw new Error("tools_list.json is not a version 1 listing: run `deno task gen`");
  }
  return raw.tools.map((entry, index) => {
    const tool = isObject(entry) && isObject(entry.tool) ? entry.tool : {};
    const { name, title, description, inputSchema, outputSchema, annotations } = tool;
    const input = isObject(inputSchema) ? inputSchema : {};
    const bad = (what: string) =>
      new Error(`tools_list.json entry ${index} (${String(name)}): ${what}; run \`deno task gen\``);
    const { kind, capabilities } = isObject(entry) ? entry : {};
    if (!isKind(kind)) throw bad("no known kind");
    if (!isStrings(capabilities)) throw bad("capabilities are not names");
    if (typeof name !== "string" || typeof title !== "string" || typeof description !== "string") {
      throw bad("no name, title or description");
    }
    const { properties, required } = input;
    if (
      input.type !== "object" || !isObject(properties) || !isJsonValue(properties) ||
      (required !== undefined && !isStrings(required))
    ) throw bad("its input schema is not an object's");
    if (
      outputSchema !== undefined &&
      (!isObject(outputSchema) || outputSchema.type !== "object" || "$schema" in outputSchema)
    ) throw bad("its output schema is not an object's");
    if (!isAnnotations(annotations)) throw bad("its annotations are not the hints");
    return {
      kind,
      capabilities,
      tool: {
        name,
        title,
        description,
        inputSchema: { ...input, type: "object", properties, ...(required ? { required } : {}) },
        ...(outputSchema === undefined ? {} : { outputSchema }),
        annotations,
      },
    };
  });
}

/** The listing as `deno task gen` writes it: two-space JSON, as `deno fmt` leaves it. */
export function listingText(listing: { version: 1; tools: ListedTool[] }): string {
  return JSON.stringify(listing, null, 2) + "\n";
}
