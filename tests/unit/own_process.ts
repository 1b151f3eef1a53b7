/**
 * The unit tests run as one test module (tests/unit/suite.ts imports every `*_test.ts` under
 * tests/unit/): each test file run on its own costs Deno a runtime of its own, most of the
 * suite's time. The few files listed here still run on their own, each for the reason given:
 * what they check would see what other files do in the same runtime.
 */
export const OWN_PROCESS: Readonly<Record<string, string>> = {
  "tests/unit/catalogue/effects_map_test.ts":
    "walks the process-wide route registry, to which other test files add stand-in routes",
};
