/**
 * The rooms of src/ and the direction imports may take between them, read from the source
 * text itself (static imports and re-exports, `import type`, and `import("…")`), so that a
 * wrong import fails here, named, instead of surviving review. Rooms are the folders of src/;
 * no file is named here. docs/architecture.md draws the same picture and names every room
 * (tested below).
 *
 *   cli → bridge → {transport, catalogue} → results → {daemon, custody}
 *
 * - A room may import any room further right in that line (not one to its left, not its
 *   neighbour in the same braces).
 * - catalogue holds the tools (their definitions and what they call); results is the pipeline
 *   every tool's data goes through on its way to a host (pages, compact form, bounds, the
 *   envelope, the advertised schemas). Tools page through results, so it sits below them.
 * - shared holds the leaves every room (but the simulator) may use; it imports only itself.
 * - profiles stands beside the line: imported only by cli, it imports only shared and the
 *   host profile data in config-profiles/.
 * - simulator stands alone: it imports nothing outside itself, and nothing in src/ imports it
 *   (tests and scripts may use both).
 * - src/ itself holds no module: every file belongs to a room.
 * - The rooms that serve tool calls never import the permission set: code running inside the
 *   confined process is handed what it needs instead (the one promise here about a file).
 * - No circles at all, between rooms or between files.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles, tokenise } from "../../support/source_text.ts";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

/** Rooms of the bridge's main line, from the top; a room may import those after it. */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"],
  ["bridge"],
  ["transport", "catalogue"],
  ["results"],
  ["daemon", "custody"],
];

/** The leaves below every room. */
const SHARED = "shared";

/** Beside the line: used by cli alone. */
const PROFILES = "profiles";

/** Alone: imports nothing of the bridge, and the bridge nothing of it. */
const SIMULATOR = "simulator";

/** Host profile data outside src/, read by profiles. */
const PROFILE_DATA = "config-profiles";

/**
 * Circles known at the time of writing and being removed on another branch; each entry is the
 * exact set of files in the circle, so any other circle still fails.
 */
const KNOWN_CIRCLES: readonly (readonly string[])[] = [];

/** The room a path inside src/ belongs to: its first folder (a file at the root has none). */
function roomOf(path: string): string {
  if (path.startsWith(`../${PROFILE_DATA}/`)) return PROFILE_DATA;
  const slash = path.indexOf("/");
  return slash === -1 ? "(src root)" : path.slice(0, slash);
}

/** Why `from` may not import `to`, or undefined when it may. */
function violation(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  const allowed = (reason: boolean, rule: string) => reason ? undefined : rule;
  if (from === SIMULATOR) return "the simulator imports nothing outside itself";
  if (to === SIMULATOR) return "nothing in src/ imports the simulator (tests and scripts may)";
  if (from === SHARED) return "shared is the floor: it imports only itself";
  if (to === PROFILE_DATA) {
    return allowed(from === PROFILES, "only profiles reads the host profile data");
  }
  if (to === SHARED) return undefined;
  if (to === PROFILES) return allowed(from === "cli", "profiles is imported only by cli");
  if (from === PROFILES) return "profiles imports only shared and config-profiles/";
  const fromLayer = LAYERS.findIndex((rooms) => rooms.includes(from));
  const toLayer = LAYERS.findIndex((rooms) => rooms.includes(to));
  if (fromLayer === -1) return `${from} is in no rule of this test; add it to the table`;
  if (toLayer === -1) return `${to} is in no rule of this test; add it to the table`;
  if (toLayer > fromLayer) return undefined;
  return toLayer === fromLayer
    ? `${from} and ${to} are side by side; what they share goes below them or in shared`
    : `${to} is above ${from} (${LAYERS.map((rooms) => rooms.join("|")).join(" → ")})`;
}

interface Import {
  specifier: string;
  line: number;
}

/** Every module specifier a file names, and any `import(…)` whose target is not a literal. */
function importsOf(text: string): { imports: Import[]; unreadable: number[] } {
  const { code, strings } = tokenise(text);
  const lineAt = (index: number) => code.slice(0, index).split("\n").length;
  const imports: Import[] = [];
  const unreadable: number[] = [];
  const statement = /\b(?:import|export)\s+(?:type\s+)?(?:[^'";`]*?\bfrom\s*)?(["'])#(\d+)\1/g;
  for (const match of code.matchAll(statement)) {
    imports.push({ specifier: strings[Number(match[2])], line: lineAt(match.index) });
  }
  for (const match of code.matchAll(/\bimport\s*\(\s*(?:(["'`])#(\d+)\1\s*[,)])?/g)) {
    const specifier = match[2] === undefined ? undefined : strings[Number(match[2])];
    if (specifier === undefined || specifier.includes("${")) unreadable.push(lineAt(match.index));
    else imports.push({ specifier, line: lineAt(match.index) });
  }
  return { imports, unreadable };
}

interface Edge {
  from: string;
  to: string;
  line: number;
}

async function readGraph(): Promise<{ files: string[]; edges: Edge[]; unreadable: string[] }> {
  const files = await sourceFiles(SRC);
  const edges: Edge[] = [];
  const unreadable: string[] = [];
  for (const file of files) {
    const { imports, unreadable: lines } = importsOf(await Deno.readTextFile(join(SRC, file)));
    for (const line of lines) unreadable.push(`src/${file}:${line}`);
    for (const { specifier, line } of imports) {
      if (!specifier.startsWith(".")) continue; // npm:, node: and mapped packages
      const to = relative(SRC, resolve(SRC, dirname(file), specifier));
      edges.push({ from: file, to, line });
    }
  }
  return { files, edges, unreadable };
}

/** Strongly connected groups of more than one file (or a file importing itself). */
function circles(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        if (!next.has(to)) continue;
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (next.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

const graph = await readGraph();

Deno.test("import graph: the reader sees the imports it should", () => {
  assert.ok(graph.files.length > 100, `read ${graph.files.length} files`);
  const has = (from: string, to: string) => graph.edges.some((e) => e.from === from && e.to === to);
  // A multi-line static import, a dynamic import, a JSON import and a type-only import.
  assert.ok(has("bridge/mod.ts", "catalogue/catalogue.ts"), "static import");
  assert.ok(has("cli/main.ts", "cli/serve.ts"), "dynamic import");
  assert.ok(has("profiles/hosts.ts", "../config-profiles/claude.json"), "JSON import");
  assert.ok(has("custody/vault.ts", "custody/group.ts"), "import type across lines");
  const sample = importsOf([
    "// import { x } from './commented.ts';",
    "/* import('./also_commented.ts') */",
    "const s = \"import y from './in_a_string.ts'\";",
    "import {\n  a,\n  type B,\n} from './multi.ts';",
    "export { c } from './reexport.ts';",
    "const m = await import('./dynamic.ts');",
    "const n = await import(`./${name}.ts`);",
  ].join("\n"));
  assert.deepEqual(sample.imports.map((i) => i.specifier).sort(), [
    "./dynamic.ts",
    "./multi.ts",
    "./reexport.ts",
  ]);
  assert.deepEqual(sample.unreadable, [10]);
});

Deno.test("import graph: src/ holds no module of its own, only rooms", () => {
  assert.deepEqual(graph.files.filter((file) => !file.includes("/")), []);
});

Deno.test("import graph: every dynamic import names its module literally", () => {
  assert.deepEqual(graph.unreadable, [], "the graph cannot follow these imports");
});

Deno.test("import graph: no import goes against the direction of the rooms", () => {
  const wrong = graph.edges.flatMap(({ from, to, line }) => {
    const why = violation(roomOf(from), roomOf(to));
    return why === undefined ? [] : [`src/${from}:${line} imports src/${to}: ${why}`];
  });
  assert.deepEqual(wrong, []);
});

Deno.test("import graph: the rules themselves refuse what they should", () => {
  assert.match(violation("transport", "catalogue") ?? "", /side by side/);
  assert.match(violation("daemon", "catalogue") ?? "", /above/);
  assert.match(violation("profiles", "daemon") ?? "", /profiles imports only/);
  assert.match(violation("bridge", "profiles") ?? "", /only by cli/);
  assert.match(violation("shared", "profiles") ?? "", /shared is the floor/);
  assert.match(violation("shared", "daemon") ?? "", /shared is the floor/);
  assert.match(violation("simulator", "shared") ?? "", /simulator imports nothing/);
  assert.match(violation("(src root)", "daemon") ?? "", /in no rule/);
  assert.match(violation("catalogue", "simulator") ?? "", /nothing in src/);
  assert.equal(violation("cli", "daemon"), undefined);
  assert.equal(violation("catalogue", "custody"), undefined);
  assert.equal(violation("catalogue", "results"), undefined);
  assert.match(violation("results", "catalogue") ?? "", /above/);
  assert.equal(violation("profiles", "shared"), undefined);
});

Deno.test("import graph: no circles between files", () => {
  const known = new Set(KNOWN_CIRCLES.map((group) => [...group].sort().join(" ")));
  const found = circles(graph.files, graph.edges).map((group) => group.join(" "));
  assert.deepEqual(found.filter((group) => !known.has(group)), [], "import circles");
});

Deno.test("import graph: no circles between rooms", () => {
  const rooms = [...new Set(graph.files.map(roomOf))];
  const between = graph.edges
    .filter(({ from, to }) => roomOf(from) !== roomOf(to))
    .map(({ from, to, line }) => ({ from: roomOf(from), to: roomOf(to), line }));
  assert.deepEqual(circles(rooms, between), []);
});

Deno.test("import graph: docs/architecture.md names every room", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/architecture.md", import.meta.url));
  const rooms = [...new Set(graph.files.map(roomOf))];
  assert.deepEqual(rooms.filter((room) => !doc.includes(`src/${room}/`)), [], "rooms not named");
  for (const room of [...LAYERS.flat(), SHARED, PROFILES, SIMULATOR]) {
    assert.ok(rooms.includes(room), `the rules name ${room}, which src/ does not have`);
  }
});

/** The one permission set; only cli and profiles build flags from it. */
const PERMISSIONS = "shared/permissions.ts";
/** The rooms whose code runs inside the confined bridge to serve a call. */
const SERVING = ["bridge", "transport", "catalogue", "results", "daemon", "custody"];

Deno.test("import graph: the rooms that serve tool calls never import the permission set", () => {
  const wrong = graph.edges.filter(({ from, to }) =>
    to === PERMISSIONS && SERVING.includes(roomOf(from))
  )
    .map(({ from, line }) => `src/${from}:${line}`);
  assert.deepEqual(wrong, []);
  assert.ok(graph.edges.some(({ to }) => to === PERMISSIONS), `${PERMISSIONS} is read at all`);
});
