import { webhooks } from '@berth/plugin-webhooks';
import { runPostgresGateway } from './serve.js';

/** `npm start -w @berth/template-gateway-postgres`: a Berth gateway on PostgreSQL (DATABASE_URL required), with webhook delivery. */
runPostgresGateway([webhooks()]).catch((error: unknown) => {
  process.stderr.write(`Berth gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
