import { execFile, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FilesystemBlobStore, systemContext } from '@berth/core';
import { gatewayNodeOptions, startChildServer, type ChildServer } from '../lib/child-server.js';
import { printTable } from '../lib/load.js';

/**
 * bench/model-files: what the gateway's model upload and download flow costs against writing and reading
 * the same bytes on the same blob store directly, and whether the gateway's memory stays flat for a big
 * file. In one run, loopback only, on the filesystem blob store (the embedded default) in one directory:
 * (a) direct: `putStream` of S bytes, then `getStream` read to the end, in this process;
 * (b) gateway: a model created for upload, `:getUploadEndpoint`, the signed PUT streaming S bytes (a valid
 *     safetensors file), `:validateUpload`, `:getDownloadEndpoint`, the signed GET read to the end; the
 *     gateway runs in its own process. The signed PUT and GET are made by curl (BENCH_CLIENT=curl, the
 *     default when curl is installed: a C client in its own process, uploading a file it reads from the
 *     page cache, as a user's upload would) or by Node's HTTP client in this process (BENCH_CLIENT=node,
 *     bytes generated as they are sent; its 64 KiB reads made it, not the server, the limit of the
 *     download: 0.3–0.6 GB/s against curl's 1.6–2.0 GB/s from the same gateway). With curl, the time
 *     curl runs outside its own transfer (`%{time_total}`: starting and ending the process, 20–30 ms a
 *     call here) is left out of (b) and (b'): it is the client's cost, which (a) has no counterpart of;
 *     the control-plane calls of (b) stay in;
 * (b') bare HTTP: a minimal `node:http` server in its own process (`bare-server.ts`) doing the same store
 *     work and nothing else: the same PUT streamed into `putStream` (hashed, fdatasynced), the same GET of
 *     `getStream` piped to the response. It separates what HTTP on loopback costs (bare ÷ direct) from
 *     what the gateway adds (gateway ÷ bare). Both server processes run with the V8 options `npm start`
 *     runs the gateway with (`gatewayNodeOptions`).
 * (a), (b) and (b') run in rounds, in an order that rotates every round (and reverses every three rounds);
 * each round gives ratios, and the medians are reported. Target (the issue's, and the verdict line):
 * gateway ÷ direct ≥ 0.8 × for upload and for download; gateway ÷ bare HTTP is reported beside it. Each
 * round also reports the CPU time the store's work took: this process's for (a), the bare server's for
 * (b'), the gateway process's for (b) (the client's is not counted), which a loaded machine disturbs far
 * less than the wall-clock ratios.
 * (c) the gateway's RSS, sampled from /proc every 25 ms, during the upload and the download of one
 *     BENCH_BIG_BYTES file (default 2 GiB). Target: flat (peak growth far below the file, reported).
 * Files are generated as they are sent (or, for curl, written once to the run's temporary directory), never
 * stored in the repository; everything is deleted afterwards.
 *
 * Environment: BENCH_CLIENT (curl or node), BENCH_FILE_BYTES (S, default 256 MiB), BENCH_ROUNDS (default 3), BENCH_BIG_BYTES (default
 * 2 GiB; 0 skips (c)), BENCH_DIR (parent of the blob directory, default the OS temp directory),
 * BENCH_NODE_OPTIONS (Node options for the gateway and bare-HTTP server processes, e.g. `--cpu-prof --cpu-prof-dir=DIR`).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const fileBytes = Number(process.env.BENCH_FILE_BYTES ?? 256 * 1024 ** 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const bigBytes = Number(process.env.BENCH_BIG_BYTES ?? 2 * 1024 ** 3);
const chunkBytes = 1024 * 1024;
const ctx = systemContext('bench-model-files');
const mib = (bytes: number) => bytes / 1024 ** 2;
const mbPerSecond = (bytes: number, ms: number) => mib(bytes) / (ms / 1000);

/** One MiB of pseudo-random bytes, reused for every chunk (never changed after it is made). */
const pattern = (() => {
  const bytes = new Uint8Array(chunkBytes);
  let x = 0x2545f491;
  for (let i = 0; i < bytes.length; i += 1) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
})();

/**
 * A valid safetensors file of exactly `size` bytes: an 8-byte header length, a header naming one U8
 * tensor, then the tensor's bytes, made as they are sent.
 */
function* safetensorsChunks(size: number): Generator<Uint8Array> {
  // The header padded with spaces to a fixed length (the format allows trailing spaces).
  const headerBytes = 256;
  const dataBytes = size - 8 - headerBytes;
  const header = JSON.stringify({ 'model.embed_tokens.weight': { dtype: 'U8', shape: [dataBytes], data_offsets: [0, dataBytes] } }).padEnd(headerBytes, ' ');
  const first = Buffer.alloc(8 + headerBytes);
  first.writeBigUInt64LE(BigInt(headerBytes), 0);
  first.write(header, 8);
  yield first;
  let left = size - first.byteLength;
  while (left > 0) {
    const n = Math.min(left, chunkBytes);
    yield n === chunkBytes ? pattern : pattern.subarray(0, n);
    left -= n;
  }
}

async function* asAsync(chunks: Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  yield* chunks;
}

/** Wall-clock and CPU milliseconds of one direction. */
interface Timed {
  readonly upMs: number;
  readonly downMs: number;
  /** CPU of the process doing the store's work (this one for (a), the gateway's for (b)), all its threads. */
  readonly upCpuMs: number;
  readonly downCpuMs: number;
}

/** CPU time of this process so far (user + system, every thread), in ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** CPU time of another process so far (utime + stime from /proc, every thread), in ms (10 ms steps). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Times one direction: wall-clock ms, less the client's own time outside its transfers that `run` answers
 * (curl's process start and exit; nothing for the other clients), and the CPU ms `cpuMs` reads over it.
 */
async function timed(cpuMs: () => number, run: () => Promise<number | void>): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const cpuStart = cpuMs();
  const clientMs = (await run()) ?? 0;
  return { ms: performance.now() - started - clientMs, cpuMs: cpuMs() - cpuStart };
}

/** Both directions, as {@link Timed}. */
const bothWays = (up: { ms: number; cpuMs: number }, down: { ms: number; cpuMs: number }): Timed =>
  ({ upMs: up.ms, upCpuMs: up.cpuMs, downMs: down.ms, downCpuMs: down.cpuMs });

/** (a): the same bytes written and read back on the store directly. */
async function direct(store: FilesystemBlobStore, key: string, size: number): Promise<Timed> {
  const up = await timed(ownCpuMs, async () => {
    const written = await store.putStream(ctx, key, asAsync(safetensorsChunks(size)), 'application/octet-stream');
    if (written !== size) throw new Error(`direct write stored ${written} of ${size} bytes`);
  });
  const down = await timed(ownCpuMs, async () => {
    const stream = await store.getStream(ctx, key);
    let read = 0;
    for await (const chunk of stream!.body) read += chunk.byteLength;
    if (read !== size) throw new Error(`direct read ${read} of ${size} bytes`);
  });
  await store.delete(ctx, key);
  return bothWays(up, down);
}

interface Gateway {
  readonly child: ChildServer;
  readonly apiKey: string;
}

async function api<T>(g: Gateway, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${g.child.url}/v1/accounts/bench${path}`, {
    method,
    headers: { authorization: `Bearer ${g.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The HTTP client of (b) and (b'): curl, in its own process as a user's would be, when it is installed; else Node's. */
const client = process.env.BENCH_CLIENT ?? (spawnSync('curl', ['--version']).status === 0 ? 'curl' : 'node');
if (client !== 'node' && client !== 'curl') throw new Error(`BENCH_CLIENT must be node or curl, not ${client}`);
/** For the curl client: the generated file of each size, written once (it is then read from the page cache). */
const sourceFiles = new Map<number, string>();
let sourceDir = '';

async function sourceFile(size: number): Promise<string> {
  let path = sourceFiles.get(size);
  if (path === undefined) {
    path = join(sourceDir, `source-${size}.safetensors`);
    await pipeline(Readable.from(safetensorsChunks(size)), createWriteStream(path));
    sourceFiles.set(size, path);
  }
  return path;
}

/** Runs curl and returns what its `-w` wrote. */
function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['--silent', '--show-error', '--fail-with-body', ...args], { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`curl ${args.join(' ')}: ${stderr || error.message} ${stdout}`));
      else resolve(stdout);
    });
  });
}

/**
 * Runs curl for one transfer and returns what its `-w` wrote after the transfer's own time, with
 * `clientMs`: how long curl ran outside the transfer (process start, exit; 20–30 ms here), which the
 * timings leave out: it is the client's cost on this machine, not the server's.
 */
async function curlTransfer(args: string[], extraFormat = ''): Promise<{ written: string; clientMs: number }> {
  const started = performance.now();
  const out = (await curl([...args, '-w', `%{time_total}${extraFormat === '' ? '' : ` ${extraFormat}`}`])).trim();
  const wallMs = performance.now() - started;
  const [seconds, ...rest] = out.split(' ');
  const transferMs = Number(seconds) * 1000;
  if (!Number.isFinite(transferMs) || transferMs > wallMs) throw new Error(`curl wrote no transfer time: ${out}`);
  return { written: rest.join(' '), clientMs: wallMs - transferMs };
}

/**
 * PUTs `size` generated bytes to a signed URL: with curl from the file, or with Node's client. Returns
 * the client's own time outside the transfer (curl's process start and exit; 0 for Node's client).
 */
async function putStreamed(url: string, size: number): Promise<number> {
  if (client === 'curl') {
    return (await curlTransfer(['-o', '/dev/null', '-H', 'content-type: application/octet-stream', '-T', await sourceFile(size), url])).clientMs;
  }
  await putStreamedNode(url, size);
  return 0;
}

/** GETs a signed URL and counts the bytes: with curl, or with Node's client; `clientMs` as for {@link putStreamed}. */
async function getCounted(url: string): Promise<{ read: number; clientMs: number }> {
  if (client === 'curl') {
    const { written, clientMs } = await curlTransfer(['-o', '/dev/null', url], '%{size_download}');
    return { read: Number(written), clientMs };
  }
  return { read: await getCountedNode(url), clientMs: 0 };
}

/** PUTs `size` generated bytes to a signed URL with their Content-Length, honouring backpressure. */
function putStreamedNode(url: string, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT answered ${res.statusCode}: ${Buffer.concat(parts).toString()}`))));
    });
    req.on('error', reject);
    const chunks = safetensorsChunks(size);
    const pump = () => {
      for (let next = chunks.next(); !next.done; next = chunks.next()) {
        if (!req.write(next.value)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** GETs a signed URL and counts the bytes with Node's client. */
function getCountedNode(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let read = 0;
      res.on('data', (part: Buffer) => { read += part.byteLength; });
      res.on('end', () => (res.statusCode === 200 ? resolve(read) : reject(new Error(`GET answered ${res.statusCode}`))));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

const config = new TextEncoder().encode(JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'] }));

/** (b): the upload flow and the download flow through the gateway, each timed from its first request to its last byte. */
async function throughGateway(g: Gateway, id: string, size: number, during?: { upload: () => void; download: () => void }): Promise<Timed> {
  await api(g, 'POST', '/models', { modelId: id, model: { kind: 'HUB_BASE_MODEL', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['config.json', 'model.safetensors'] } } });
  const gatewayCpuMs = () => processCpuMs(g.child.pid);
  const up = await timed(gatewayCpuMs, async () => {
    during?.upload();
    const { filenameToSignedUrls: urls } = await api<{ filenameToSignedUrls: Record<string, string> }>(g, 'POST', `/models/${id}:getUploadEndpoint`, {
      filenameToSize: { 'config.json': String(config.byteLength), 'model.safetensors': String(size) },
    });
    const configPut = await fetch(urls['config.json']!, { method: 'PUT', body: config });
    if (!configPut.ok) throw new Error(`config PUT answered ${configPut.status}`);
    const clientMs = await putStreamed(urls['model.safetensors']!, size);
    await api(g, 'GET', `/models/${id}:validateUpload`);
    return clientMs;
  });
  const down = await timed(gatewayCpuMs, async () => {
    during?.download();
    const { filenameToSignedUrls: urls } = await api<{ filenameToSignedUrls: Record<string, string> }>(g, 'GET', `/models/${id}:getDownloadEndpoint`);
    const { read, clientMs } = await getCounted(urls['model.safetensors']!);
    if (read !== size) throw new Error(`gateway download read ${read} of ${size} bytes`);
    return clientMs;
  });
  await api(g, 'DELETE', `/models/${id}`);
  return bothWays(up, down);
}

/** (b'): the bare HTTP baseline: the same signed-URL-less PUT and GET of the bytes on the bare server's store. */
async function throughBareHttp(bare: ChildServer, key: string, size: number): Promise<Timed> {
  const url = `${bare.url}/${encodeURIComponent(key)}`;
  const bareCpuMs = () => processCpuMs(bare.pid);
  const up = await timed(bareCpuMs, () => putStreamed(url, size));
  const down = await timed(bareCpuMs, async () => {
    const { read, clientMs } = await getCounted(url);
    if (read !== size) throw new Error(`bare HTTP download read ${read} of ${size} bytes`);
    return clientMs;
  });
  const deleted = await fetch(url, { method: 'DELETE' });
  if (deleted.status !== 204) throw new Error(`bare HTTP DELETE answered ${deleted.status}`);
  return bothWays(up, down);
}

/** RSS of a process now, in bytes (Linux /proc). */
function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface ModelFilesResult {
  /** The issue's target: gateway over direct, median of the paired rounds. */
  readonly uploadRatio: number;
  readonly downloadRatio: number;
  /** Gateway over the bare HTTP server doing the same store work: what the gateway adds. */
  readonly uploadVsBare: number;
  readonly downloadVsBare: number;
  readonly peakGrowth?: number;
}

export async function runModelFilesBenchmark(): Promise<ModelFilesResult> {
  const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'berth-bench-model-files-'));
  const blobDir = join(root, 'blobs');
  sourceDir = root;
  const store = new FilesystemBlobStore({ directory: blobDir });
  const child = await startChildServer(here('./gateway-server.ts'), [], { BENCH_BLOB_DIR: blobDir }, gatewayNodeOptions);
  const bare = await startChildServer(here('./bare-server.ts'), [], { BENCH_BLOB_DIR: blobDir }, gatewayNodeOptions);
  const g: Gateway = { child, apiKey: String(child.info.apiKey) };
  const loadBefore = loadavg()[0]!;
  try {
    // Warm-up: a file of 64 MiB each way (JIT, connections, the store's directories, the heap's size: with
    // 8 MiB, the gateway's first 256 MiB upload still took twice the CPU of the next ones).
    const warmBytes = Math.min(fileBytes, 64 * 1024 * 1024);
    await direct(store, 'bench/warmup', warmBytes);
    await throughGateway(g, 'warmup', warmBytes);
    await throughBareHttp(bare, 'warmup', warmBytes);
    const rows: Array<Array<string | number>> = [];
    const cpuRows: Array<Array<string | number>> = [];
    const ratios = { up: [] as number[], down: [] as number[], upBare: [] as number[], downBare: [] as number[], bareUp: [] as number[], bareDown: [] as number[] };
    for (let round = 0; round < rounds; round += 1) {
      // The three runs of a round in a rotating order, so none always runs first or last.
      const runs = [
        { name: 'direct', run: () => direct(store, `bench/round-${round}`, fileBytes) },
        { name: 'gateway', run: () => throughGateway(g, `round-${round}`, fileBytes) },
        { name: 'bare', run: () => throughBareHttp(bare, `round-${round}`, fileBytes) },
      ];
      const order = [...runs.slice(round % 3), ...runs.slice(0, round % 3)];
      if (Math.floor(round / 3) % 2 === 1) order.reverse();
      const timed = new Map<string, Timed>();
      for (const { name, run } of order) timed.set(name, await run());
      const d = timed.get('direct')!;
      const w = timed.get('gateway')!;
      const b = timed.get('bare')!;
      ratios.up.push(d.upMs / w.upMs);
      ratios.down.push(d.downMs / w.downMs);
      ratios.upBare.push(b.upMs / w.upMs);
      ratios.downBare.push(b.downMs / w.downMs);
      ratios.bareUp.push(d.upMs / b.upMs);
      ratios.bareDown.push(d.downMs / b.downMs);
      const rate = (ms: number) => mbPerSecond(fileBytes, ms).toFixed(0);
      rows.push([round + 1, order.map((o) => o.name[0]).join(''),
        rate(d.upMs), rate(b.upMs), rate(w.upMs), (d.upMs / w.upMs).toFixed(2), (b.upMs / w.upMs).toFixed(2),
        rate(d.downMs), rate(b.downMs), rate(w.downMs), (d.downMs / w.downMs).toFixed(2), (b.downMs / w.downMs).toFixed(2)]);
      cpuRows.push([round + 1, d.upCpuMs.toFixed(0), b.upCpuMs.toFixed(0), w.upCpuMs.toFixed(0), d.downCpuMs.toFixed(0), b.downCpuMs.toFixed(0), w.downCpuMs.toFixed(0)]);
    }
    console.log(`\nmodel-files benchmark: ${rounds} rounds of ${mib(fileBytes)} MiB, filesystem blob store (${blobDir}), HTTP client ${client}, Node ${process.version}; load average ${loadBefore.toFixed(1)} at start on ${availableParallelism()} cores`);
    console.log('order: d = direct store calls, b = bare node:http server, g = gateway (MB/s; gw/d = gateway ÷ direct, the target; gw/b = gateway ÷ bare HTTP)');
    printTable(['round', 'order', 'direct up', 'bare up', 'gateway up', 'up gw/d', 'up gw/b', 'direct down', 'bare down', 'gateway down', 'down gw/d', 'down gw/b'], rows);
    console.log(`\nCPU time of the process doing the store's work, every thread (direct: this process; bare and gateway: theirs, from /proc, 10 ms steps), ms per ${mib(fileBytes)} MiB`);
    printTable(['round', 'direct up', 'bare up', 'gateway up', 'direct down', 'bare down', 'gateway down'], cpuRows);
    const uploadRatio = median(ratios.up);
    const downloadRatio = median(ratios.down);
    const uploadVsBare = median(ratios.upBare);
    const downloadVsBare = median(ratios.downBare);
    console.log(`median bare HTTP ÷ direct: upload ${median(ratios.bareUp).toFixed(2)} ×, download ${median(ratios.bareDown).toFixed(2)} × (what HTTP on loopback costs)`);
    console.log(`median gateway ÷ bare HTTP: upload ${uploadVsBare.toFixed(2)} ×, download ${downloadVsBare.toFixed(2)} × (what the gateway adds)`);
    console.log(`median gateway ÷ direct: upload ${uploadRatio.toFixed(2)} ×, download ${downloadRatio.toFixed(2)} × (target ≥ 0.8 ×: ${uploadRatio >= 0.8 && downloadRatio >= 0.8 ? 'met' : 'MISSED'})`);

    let peakGrowth: number | undefined;
    if (bigBytes > 0) {
      const pid = child.pid;
      const before = rssBytes(pid);
      const peaks = { upload: before, download: before };
      let phase: 'upload' | 'download' = 'upload';
      const sampler = setInterval(() => { peaks[phase] = Math.max(peaks[phase], rssBytes(pid)); }, 25);
      let big: { upMs: number; downMs: number };
      try {
        big = await throughGateway(g, 'big', bigBytes, { upload: () => { phase = 'upload'; }, download: () => { phase = 'download'; } });
      } finally {
        clearInterval(sampler);
      }
      peakGrowth = Math.max(peaks.upload, peaks.download) - before;
      console.log(`\n(c) one ${(bigBytes / 1024 ** 3).toFixed(2)} GiB file through the gateway, RSS sampled every 25 ms`);
      printTable(['phase', 'MB/s', 'RSS before MB', 'peak RSS MB', 'growth MB'], [
        ['upload', mbPerSecond(bigBytes, big.upMs).toFixed(0), mib(before).toFixed(1), mib(peaks.upload).toFixed(1), mib(peaks.upload - before).toFixed(1)],
        ['download', mbPerSecond(bigBytes, big.downMs).toFixed(0), mib(before).toFixed(1), mib(peaks.download).toFixed(1), mib(peaks.download - before).toFixed(1)],
      ]);
    }
    console.log(`load average at end ${loadavg()[0]!.toFixed(1)}`);
    return { uploadRatio, downloadRatio, uploadVsBare, downloadVsBare, ...(peakGrowth !== undefined ? { peakGrowth } : {}) };
  } finally {
    await child.stop();
    await bare.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
