import pg from 'pg';

/** DATABASE_URL, or database `berth_bench` on the local server (created when missing). */
export async function benchDatabaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  try {
    const exists = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'berth_bench'`);
    if (exists.rows.length === 0) await admin.query('CREATE DATABASE berth_bench');
  } finally {
    await admin.end();
  }
  return 'postgres://postgres@127.0.0.1:5432/berth_bench';
}
