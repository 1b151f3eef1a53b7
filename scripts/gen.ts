/**
 * `deno task gen`: derives the served tools/list (src/catalogue/tools_list.json) and the
 * README's tool reference from the tool definitions. Tests fail when either is stale.
 */
import { ALL_TOOLS } from "../src/catalogue/index.ts";
import { listTools } from "../src/catalogue/describe.ts";
import { withReference } from "../src/catalogue/reference.ts";

const listing = new URL("../src/catalogue/tools_list.json", import.meta.url);
await Deno.writeTextFile(listing, JSON.stringify(listTools(ALL_TOOLS)) + "\n");
const readme = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(readme, withReference(await Deno.readTextFile(readme)));
