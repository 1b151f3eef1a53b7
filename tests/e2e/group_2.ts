/** End-to-end files as one test module of `deno task test`: tests/e2e/groups.ts says why. */
import "./consequential_test.ts";
import "./acquire_gate_test.ts";
import "./coordination_test.ts";
import "./instructions_test.ts";
