export { createSandboxEvaluatorRunner, type SandboxEvaluatorRunnerOptions } from './sandbox-evaluator-runner.js';
export { criterionKind, criterionProblem, codeLanguage, criterionTypeValues, type CriterionKind, type CriterionProblem } from './criteria.js';
export { detectSandboxHost, type SandboxHost } from './sandbox-command.js';
