import { invalidArgument } from '../../errors/index.js';
import { assertValidId, formatResourceName, parseResourceName } from '../../names/resource-name.js';
import { assertTransition } from '../common/state-machine.js';
import type { Dataset } from './dataset-schema.js';
import { datasetStateMachine } from './dataset-state-machine.js';

/**
 * Accepts a dataset reference as a full name (`accounts/{a}/datasets/{id}`) or a bare id and returns
 * the full name in `accountId` for a bare id. A full name is returned as given (the caller checks the
 * account and existence with `requireReference`). Throws INVALID_ARGUMENT naming `field`.
 */
export function datasetNameOf(reference: string, accountId: string, field: string): string {
  if (reference.includes('/')) {
    parseResourceName(reference, 'datasets', field);
    return reference;
  }
  return formatResourceName(accountId, 'datasets', assertValidId(reference, field));
}

/** The source of a derived dataset, already loaded and checked to be in the same account. */
export interface DatasetDerivation {
  readonly sourceName: string;
  readonly source: Dataset;
  readonly filter: string;
}

export interface DatasetRuleInput {
  /** E-mail of the caller; recorded as `createdBy`. */
  readonly createdBy?: string | undefined;
  readonly derivation?: DatasetDerivation | undefined;
}

/** Moves a new dataset to READY through the state machine. */
function becomeReady(dataset: Dataset): void {
  assertTransition(datasetStateMachine, dataset.state, 'READY');
  dataset.state = 'READY';
}

/**
 * Rules of a new dataset (mutates `dataset`, which carries the initial state UPLOADING):
 * - `createdBy` is the caller's e-mail (output only; absent for system callers without one);
 * - with `externalUrl` the examples already exist, so the dataset is READY at once;
 * - a derived dataset records its lineage (`sourceDataset`, `sourceFilter`), takes the source's format
 *   (a different explicit format is INVALID_ARGUMENT), may not also point to an `externalUrl`, and is
 *   READY at once when its source is READY (the filter is applied lazily over immutable contents).
 */
export function applyDatasetCreateRules(dataset: Dataset, input: DatasetRuleInput): void {
  if (input.createdBy) dataset.createdBy = input.createdBy;
  else delete dataset.createdBy;
  const externalUrl = dataset.externalUrl ?? '';
  const derivation = input.derivation;
  if (derivation) {
    if (externalUrl !== '') {
      throw invalidArgument('dataset.externalUrl must not be set on a dataset derived from sourceDatasetId', { field: 'dataset.externalUrl' });
    }
    const sourceFormat = derivation.source.format ?? 'FORMAT_UNSPECIFIED';
    const format = dataset.format ?? 'FORMAT_UNSPECIFIED';
    if (format !== 'FORMAT_UNSPECIFIED' && sourceFormat !== 'FORMAT_UNSPECIFIED' && format !== sourceFormat) {
      throw invalidArgument(`dataset.format ${format} differs from the format ${sourceFormat} of ${derivation.sourceName}`, { field: 'dataset.format' });
    }
    if (format === 'FORMAT_UNSPECIFIED' && sourceFormat !== 'FORMAT_UNSPECIFIED') dataset.format = sourceFormat;
    dataset.sourceDataset = derivation.sourceName;
    dataset.sourceFilter = derivation.filter;
    if (derivation.source.state === 'READY') becomeReady(dataset);
    return;
  }
  if (externalUrl !== '') becomeReady(dataset);
}

/**
 * Checks the derivation part of a create request: `filter` is required (non-blank) with
 * `sourceDatasetId` and allowed only with it. Returns the trimmed pair, or undefined when the request
 * does not derive.
 */
export function checkDerivationRequest(sourceDatasetId: string | undefined, filter: string | undefined): { sourceDatasetId: string; filter: string } | undefined {
  const source = sourceDatasetId ?? '';
  const text = filter ?? '';
  if (source === '') {
    if (text.trim() !== '') throw invalidArgument('filter is allowed only together with sourceDatasetId', { field: 'filter' });
    return undefined;
  }
  if (text.trim() === '') throw invalidArgument('filter is required when sourceDatasetId is given', { field: 'filter' });
  return { sourceDatasetId: source, filter: text.trim() };
}

/** Parses a count given to `markReady`: a non-negative integer, carried as an int64 string. */
export function int64Count(value: number | string, field: string): string {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value;
  if (!/^[0-9]{1,19}$/.test(text) || BigInt(text) > 9223372036854775807n) {
    throw invalidArgument(`${field} must be a non-negative 64-bit integer`, { field });
  }
  return BigInt(text).toString();
}
