import { TOOL_ORDER } from "../../src/catalogue/index.ts";
Deno.test("t20", () => {
  if (!TOOL_ORDER.length) throw new Error();
});
