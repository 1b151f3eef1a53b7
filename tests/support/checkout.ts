/** A copy of this checkout, for tests that must see what a task writes or creates. */

/** Copies the checkout at `from` (without .git and dist/) to `to`. */
export async function copyCheckout(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.name === ".git" || entry.name === "dist" || entry.name === "node_modules") continue;
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyCheckout(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}
