/**
 * `ln -s`: Deno.symlink needs unscoped read and write, and .ci/run runs the unit tests with
 * reads scoped to the clone and the temp folder.
 */
export async function symlink(target: string, path: string): Promise<void> {
  const out = await new Deno.Command("ln", { args: ["-s", target, path] }).output();
  if (!out.success) throw new Error(`ln -s ${target} ${path} failed`);
}
