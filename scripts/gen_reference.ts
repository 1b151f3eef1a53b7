/** Regenerates the README's tool reference from the tool definitions. */
import { withReference } from "../src/catalogue/reference.ts";

const path = new URL("../README.md", import.meta.url);
await Deno.writeTextFile(path, withReference(await Deno.readTextFile(path)));
