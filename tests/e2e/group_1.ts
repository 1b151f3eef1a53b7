/** End-to-end files as one test module of `deno task test`: tests/e2e/groups.ts says why. */
import "./approval_test.ts";
import "./simulator_process_test.ts";
import "./compact_test.ts";
