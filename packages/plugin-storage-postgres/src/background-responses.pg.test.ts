import { describeBackgroundResponseScenarios } from '@berth/core/testing';
import { openScenarioStorage, scenarioLabel } from './test-support.js';

/**
 * Core's background-response scenarios on PostgreSQL (DATABASE_URL when set, else an embedded PGlite):
 * two instances' services and queue workers on one schema, cancel across them, the cancel/completion
 * race (row locks in one transaction) and a stalled worker's job run again.
 */
describeBackgroundResponseScenarios(scenarioLabel, openScenarioStorage);
