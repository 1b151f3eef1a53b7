import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/results/describe.ts";
import { listingText } from "../../../src/results/listing.ts";

Deno.test("the served tools/list is derived from the definitions (run `deno task gen`)", async () => {
  const served = await Deno.readTextFile(
    new URL("../../../src/catalogue/tools_list.json", import.meta.url),
  );
  // Byte for byte, so the reviewed file is exactly what is served.
  assert.equal(served, listingText(listTools(ALL_TOOLS)));
});
