import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { describeTool } from "../src/catalogue/describe.ts";
let total = 0, all = 0;
for (const t of ALL_TOOLS) {
  const d = describeTool(t);
  const mv = t.name.length + t.description.length + JSON.stringify(d.inputSchema).length;
  all += JSON.stringify(d).length;
  total += mv;
  console.log(t.name.padEnd(40), mv, JSON.stringify(d).length);
}
console.log("model-visible", total, "full", all);
