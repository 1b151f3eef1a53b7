import { TOOL_ORDER } from "../../src/catalogue/index.ts";
Deno.test("t9", () => {
  if (!TOOL_ORDER.length) throw new Error();
});
