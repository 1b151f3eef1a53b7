/**
 * The end-to-end files, run by `deno task test` as a few test modules. Deno gives every test
 * module a runtime of its own, and each e2e file's runtime loaded the harness, the MCP client,
 * the simulator and the catalogue again: about half a second of CPU per file, most of which a
 * group pays once. Each group module below imports its files (in the order listed there); the
 * groups take about the same time, and together about twice the unit suite, so that two cores
 * running them beside it finish together. Every `tests/e2e/*_test.ts` is in exactly one group
 * (tests/unit/repo/tasks_test.ts checks it); a single file still runs on its own
 * (`deno test … tests/e2e/x_test.ts`).
 */
export const E2E_GROUPS: readonly string[] = [
  "tests/e2e/group_1.ts",
  "tests/e2e/group_2.ts",
  "tests/e2e/group_3.ts",
  "tests/e2e/group_4.ts",
];
