const src: string[] = [];
async function walk(d: string, out: string[], suffix: string) {
  for await (const e of Deno.readDir(d)) {
    const p = `${d}/${e.name}`;
    if (e.isDirectory) await walk(p, out, suffix);
    else if (p.endsWith(suffix)) out.push(p);
  }
}
await walk("src", src, ".ts");
const tests: string[] = [];
await walk("tests/unit", tests, ".ts");
const imported = new Map<string, Set<string>>();
for (const t of tests) {
  const text = await Deno.readTextFile(t);
  for (const m of text.matchAll(/from "([^"]+)"/g)) {
    if (!m[1].startsWith(".")) continue;
    const url = new URL(m[1], `file:///w/${t}`);
    const p = url.pathname.slice(3);
    if (!imported.has(p)) imported.set(p, new Set());
    imported.get(p)!.add(t);
  }
}
let direct = 0, room = 0;
const none: string[] = [];
for (const s of src.sort()) {
  const mirror = `tests/unit/${s.slice(4, -3)}_test.ts`;
  const by = imported.get(s) ?? new Set();
  const roomDir = `tests/unit/${s.slice(4, s.lastIndexOf("/"))}`;
  if ([...by].length > 0) direct++;
  if ([...by].some((t) => t.startsWith(roomDir + "/") || t === mirror)) room++;
  else none.push(s);
}
console.log(src.length, "imported by any unit test:", direct, "by a test in its room:", room);
console.log(none.join(" "));
