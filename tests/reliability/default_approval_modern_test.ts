/**
 * The default-approval cases (tests/e2e/default_approval_cases.ts) for protocol 2026-07-28; the
 * fast suite runs the legacy era.
 */
import { defaultApprovalCases } from "../e2e/default_approval_cases.ts";

defaultApprovalCases("modern");
