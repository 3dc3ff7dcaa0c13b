import { failedPrecondition } from '../../errors/index.js';

/**
 * A state machine as data: for each state, the states it may move to. Services call
 * `assertTransition` and never assign `state` without it.
 */
export interface StateMachine<S extends string> {
  readonly resource: string;
  readonly initial: S;
  readonly transitions: Readonly<Record<S, readonly S[]>>;
}

export function defineStateMachine<S extends string>(machine: StateMachine<S>): StateMachine<S> {
  return machine;
}

/** Whether `from → to` is in the table. A record without a state (`undefined`) moves nowhere. */
export function canTransition<S extends string>(machine: StateMachine<S>, from: S | undefined, to: S): boolean {
  return from !== undefined && (machine.transitions[from]?.includes(to) ?? false);
}

/** Throws FAILED_PRECONDITION when `from → to` is not in the table (or the record has no state). */
export function assertTransition<S extends string>(machine: StateMachine<S>, from: S | undefined, to: S): void {
  if (!canTransition(machine, from, to)) {
    throw failedPrecondition(`${machine.resource} cannot move from ${from} to ${to}`, { reason: 'INVALID_STATE_TRANSITION' });
  }
}
