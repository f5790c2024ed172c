import { answerEquals, answerJson, answerMatches, answerNumberCheck, exitReason } from './answerPatternChecks.js';
import { budget } from './budgetChecks.js';
import { noToolErrors, toolArgs, toolCount, toolNotCalled, toolSequence } from './trajectoryChecks.js';

/** The trajectory, answer and budget checks, by type name (spread into the registry). */
export const JUDGED_CHECKS = {
  tool_sequence: toolSequence,
  tool_args: toolArgs,
  tool_not_called: toolNotCalled,
  tool_count: toolCount,
  no_tool_errors: noToolErrors,
  answer_matches: answerMatches,
  answer_equals: answerEquals,
  answer_number: answerNumberCheck,
  answer_json: answerJson,
  exit_reason: exitReason,
  budget,
} as const;
