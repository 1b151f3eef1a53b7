const root = new URL("../tests/unit/", import.meta.url);
async function* walk(dir: URL): AsyncGenerator<URL> {
  const entries = await Array.fromAsync(Deno.readDir(dir));
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const e of entries) {
    const u = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) yield* walk(u);
    else if (e.name.endsWith("_test.ts")) yield u;
  }
}
for await (const file of walk(root)) {
  if (file.pathname.includes("timing_test")) continue;
  await import(file.href);
}
