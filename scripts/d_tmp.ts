import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { describeTool } from "../src/catalogue/catalogue.ts";
for (const n of Deno.args) {
  console.log(JSON.stringify(describeTool(ALL_TOOLS.find((t) => t.name === n)!).outputSchema));
}
