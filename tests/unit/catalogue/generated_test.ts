import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/catalogue/describe.ts";

Deno.test("the served tools/list is derived from the definitions (run `deno task gen`)", async () => {
  const served = JSON.parse(
    await Deno.readTextFile(new URL("../../../src/catalogue/tools_list.json", import.meta.url)),
  );
  assert.deepEqual(served, JSON.parse(JSON.stringify(listTools(ALL_TOOLS))));
});
