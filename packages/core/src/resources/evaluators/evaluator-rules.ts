import { createHash } from 'node:crypto';
import { invalidArgument } from '../../errors/index.js';
import { criterionProblem } from '../../evaluators/criteria.js';
import { parseResourceName } from '../../names/resource-name.js';
import { assertSameAccountReference } from '../common/resource-environment.js';
import type { Evaluator } from './evaluator-schema.js';

/**
 * Rules of an evaluator, on create and on the merged result of an update (INVALID_ARGUMENT naming the
 * field): at least one criterion, each configured as its kind needs (code compiles later, in the build);
 * criterion names unique; `rollupSettings.criteriaWeights` naming criteria only; `rollupSettings.pythonCode`
 * not supported (weights and a threshold are); `defaultDataset` a dataset of the evaluator's account.
 */
export function applyEvaluatorRules(evaluator: Evaluator): void {
  const { accountId } = parseResourceName(evaluator.name, 'evaluators');
  const criteria = evaluator.criteria ?? [];
  if (criteria.length === 0) throw invalidArgument('criteria must hold at least one criterion', { field: 'criteria' });
  const names = new Set<string>();
  for (const [index, criterion] of criteria.entries()) {
    const problem = criterionProblem(criterion);
    if (problem) throw invalidArgument(`criteria[${index}].${problem.field}: ${problem.message}`, { field: `criteria[${index}].${problem.field}` });
    const name = criterion.name ?? '';
    if (name !== '') {
      if (names.has(name)) throw invalidArgument(`criteria[${index}].name: "${name}" names two criteria`, { field: `criteria[${index}].name` });
      names.add(name);
    }
  }
  const rollup = evaluator.rollupSettings;
  if (rollup?.pythonCode !== undefined && rollup.pythonCode !== '') {
    throw invalidArgument('rollupSettings.pythonCode is not supported: combine criteria with criteriaWeights (and successThreshold)', {
      field: 'rollupSettings.pythonCode',
    });
  }
  for (const weighted of Object.keys(rollup?.criteriaWeights ?? {})) {
    if (!names.has(weighted)) {
      throw invalidArgument(`rollupSettings.criteriaWeights: "${weighted}" is not the name of a criterion`, { field: 'rollupSettings.criteriaWeights' });
    }
  }
  if (evaluator.defaultDataset !== undefined && evaluator.defaultDataset !== '') {
    assertSameAccountReference(evaluator.defaultDataset, 'datasets', accountId, 'defaultDataset');
  }
}

/** JSON with object keys sorted at every level: equal values give equal text whatever the storage's key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What a build depends on: a change of any of these builds the evaluator again. Key order does not
 * count (PostgreSQL's jsonb stores object keys in its own order).
 */
export function evaluatorBuildKey(evaluator: Evaluator): string {
  const inputs = [evaluator.criteria ?? [], evaluator.requirements ?? '', evaluator.entryPoint ?? ''];
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex').slice(0, 32);
}
