/** End-to-end files as one test module of `deno task test`: tests/e2e/groups.ts says why. */
import "./page_bound_test.ts";
import "./setup_test.ts";
import "./default_approval_test.ts";
import "./hints_test.ts";
import "./socket_swap_test.ts";
