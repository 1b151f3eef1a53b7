import { CONSEQUENTIAL_TOOLS } from "../src/catalogue/tools/consequential.ts";
import { describeTool } from "../src/catalogue/catalogue.ts";
let d = 0, s = 0, n = 0, f = 0;
for (const t of CONSEQUENTIAL_TOOLS) { d += t.description.length; n += t.name.length; s += JSON.stringify(describeTool(t).inputSchema).length; f += JSON.stringify(describeTool(t)).length; console.log(t.description.length, t.description); }
console.log({ d, n, s, total: d + n + s, full: f });
