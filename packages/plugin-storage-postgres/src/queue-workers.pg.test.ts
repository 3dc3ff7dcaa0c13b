import { describeQueueWorkerScenarios } from '@berth/core/testing';
import { openScenarioStorage, scenarioLabel } from './test-support.js';

/**
 * Core's queue-worker scenarios on PostgreSQL: DATABASE_URL when set, else an embedded PGlite; a fresh
 * schema per test, dropped after.
 */
describeQueueWorkerScenarios(scenarioLabel, openScenarioStorage);
