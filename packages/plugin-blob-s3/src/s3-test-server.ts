import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';

/** Test helper (not exported): a local S3-compatible server (s3rver) in a child process on a loopback port. */
export interface LocalS3 {
  readonly client: S3Client;
  readonly bucket: string;
  readonly endpoint: string;
  stop(): Promise<void>;
}

const serverScript = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[2], configureBuckets: [{ name: process.argv[3] }] });
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'));
process.on('disconnect', () => process.exit(0));
`;

/** Starts s3rver (from the registry package, in its own process so its memory is not this process's) with one bucket. */
export async function startLocalS3(bucket = 'berth-test'): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'berth-s3rver-'));
  const s3rver = createRequire(import.meta.url).resolve('s3rver');
  const child: ChildProcess = spawn(process.execPath, ['-e', serverScript, s3rver, directory, bucket], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n') && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before it listened`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // s3rver predates the SDK's default request checksums (aws-chunked bodies): send them only when required.
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    client, bucket, endpoint,
    async stop() {
      client.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
