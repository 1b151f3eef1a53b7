/** End-to-end files as one test module of `deno task test`: tests/e2e/groups.ts says why. */
import "./transport_test.ts";
import "./foundation_test.ts";
import "./inspection_test.ts";
import "./portreeve_home_test.ts";
import "./stdout_scrub_test.ts";
import "./doctor_entry_test.ts";
