/**
 * The served listing (src/catalogue/tools_list.json) is read back checked, with no cast: what
 * `deno task gen` writes reads back whole, and an entry that is not what it writes is refused,
 * naming it.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/results/describe.ts";
import { listingText, readListing } from "../../../src/results/listing.ts";
import type { Json } from "../../../src/shared/json.ts";

Deno.test("the served listing reads back whole, checked; a malformed entry is refused, named", () => {
  const listing = listTools(ALL_TOOLS);
  const read = readListing(JSON.parse(listingText(listing)));
  assert.deepEqual(read, JSON.parse(listingText(listing)).tools);
  const broken = (change: (entry: Json) => void) => {
    const copy = JSON.parse(listingText(listing));
    change(copy.tools[3]);
    return () => readListing(copy);
  };
  const named = new RegExp(`entry 3 \\(${ALL_TOOLS[3].name}\\)`);
  assert.throws(broken((entry) => entry.kind = "write"), named);
  assert.throws(broken((entry) => entry.capabilities = [1]), named);
  assert.throws(broken((entry) => (entry.tool as Json).inputSchema = { type: "array" }), named);
  assert.throws(
    broken((entry) => (entry.tool as Json).annotations = { readOnlyHint: "yes" }),
    named,
  );
  assert.throws(() => readListing({ version: 2, tools: [] }), /version 1/);
});
