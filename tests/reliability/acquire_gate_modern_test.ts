/**
 * The acquire gate's cases (tests/e2e/acquire_gate_cases.ts) for protocol 2026-07-28, where the
 * host answers the question as an input_required round; the fast suite runs the legacy era.
 */
import { acquireGateCases } from "../e2e/acquire_gate_cases.ts";

acquireGateCases("modern");
