import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { referenceImageEngine, systemContext, type ImageGenerationRequest } from '@berth/core';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { cpuMicros, printTable } from '../lib/load.js';
import { median, pairedRound } from '../lib/stats.js';
import { runWebhookDeliveryBenchmark, type WebhookRate } from './webhooks.js';

/**
 * bench/images: what the gateway adds to one text_to_image over the reference image engine called
 * directly. Processes (loopback only): the gateway (`gateway-server.ts`: memory storage, API keys, the gpux
 * runtime's simulated pool serving the reference image engine) and this client, which also calls a
 * reference image engine of its own in process as the baseline, with the request the gateway hands its
 * engine (same size, steps, guidance, seed, format).
 *
 * Scenarios: 1:1 JPEG bytes (no Accept: what the reference clients ask for) and 1:1 JSON (a PNG data URI).
 * Method: paired rounds (baseline and gateway back to back, order alternating); per round, BENCH_IMAGES
 * sequential images per side on one keep-alive connection; the figure is the median over rounds of the
 * per-round difference of the two sides' median latency, with its range. CPU per image — the gateway
 * process's from /proc, the direct calls' from this process's `cpuUsage` (all threads: sharp draws on
 * libvips workers) — is steadier than wall time on a shared machine; its paired difference is what the
 * gateway costs per image beyond the drawing. Then webhook deliveries per second (`webhooks.ts`).
 * Environment: BENCH_ROUNDS (11), BENCH_IMAGES per side per round (15), BENCH_WEBHOOKS per delivery run
 * (1000; 0 skips them), DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; a fresh schema per run).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const imagesPerSide = Number(process.env.BENCH_IMAGES ?? 15);
const prompt = 'a lighthouse at dusk, long exposure';
const seed = 42;
const textToImagePath = '/inference/v1/workflows/accounts/system/models/imgmodel-1-schnell-fp8/text_to_image';

export interface ImagesBenchmarkResult {
  /** Added latency per image (median of the paired differences), µs, by scenario. */
  readonly addedP50Us: Readonly<Record<string, number>>;
  /** Added CPU time per image (gateway process minus the direct calls in this process, paired), µs. */
  readonly addedCpuUs: Readonly<Record<string, number>>;
  /** Webhook deliveries per second (BENCH_WEBHOOKS=0 skips them). */
  readonly webhooks: readonly WebhookRate[];
}

interface Scenario {
  readonly name: string;
  readonly accept: string | undefined;
  readonly format: 'jpeg' | 'png';
}

const scenarios: readonly Scenario[] = [
  { name: '1:1 JPEG bytes (no Accept)', accept: undefined, format: 'jpeg' },
  { name: '1:1 JSON (PNG data URI)', accept: 'application/json', format: 'png' },
];

const us = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : 'n/a');

/** Median wall time of `count` sequential runs of `call`, µs. */
async function timed(count: number, call: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return median(samples);
}

export async function runImagesBenchmark(): Promise<ImagesBenchmarkResult> {
  const loadBefore = loadavg();
  const engine = referenceImageEngine();
  const ctx = systemContext('bench-images');
  let gateway: ChildServer | undefined;
  const agent = new Agent({ connections: 1 });
  try {
    gateway = await startChildServer(here('./gateway-server.ts'));
    const apiKey = String(gateway.info.apiKey);
    const url = `${gateway.url}${textToImagePath}`;
    const rows: Array<Array<string | number>> = [];
    const addedP50Us: Record<string, number> = {};
    const addedCpuUs: Record<string, number> = {};
    for (const scenario of scenarios) {
      const direct: ImageGenerationRequest = {
        role: 'text_to_image', model: 'imgmodel-1-schnell-fp8', prompt, width: 1024, height: 1024, seed, guidanceScale: 3.5, steps: 4,
        format: scenario.format,
      };
      const body = JSON.stringify({ prompt, seed });
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      if (scenario.accept) headers.accept = scenario.accept;
      const viaGateway = async () => {
        const answer = await request(url, { method: 'POST', headers, body, dispatcher: agent });
        const bytes = await answer.body.arrayBuffer();
        if (answer.statusCode !== 200 || bytes.byteLength === 0) throw new Error(`gateway answered ${answer.statusCode}`);
      };
      const directly = async () => {
        const image = await engine.generate(ctx, direct);
        if (image.bytes.byteLength === 0) throw new Error('empty image');
      };
      // Warm up both paths (JIT, sharp's thread pool, the keep-alive connection).
      for (let i = 0; i < 5; i += 1) {
        await directly();
        await viaGateway();
      }
      const baseline: number[] = [];
      const subject: number[] = [];
      const cpuPerImage: number[] = [];
      const directCpuPerImage: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        await pairedRound(
          round,
          async () => {
            // This process's CPU over all its threads (sharp draws on libvips worker threads).
            const before = process.cpuUsage();
            baseline.push(await timed(imagesPerSide, directly));
            const used = process.cpuUsage(before);
            directCpuPerImage.push((used.user + used.system) / imagesPerSide);
          },
          async () => {
            const before = cpuMicros(gateway!.pid);
            subject.push(await timed(imagesPerSide, viaGateway));
            const after = cpuMicros(gateway!.pid);
            cpuPerImage.push(before === undefined || after === undefined ? Number.NaN : (after - before) / imagesPerSide);
          },
        );
      }
      const differences = subject.map((s, i) => s - baseline[i]!);
      const cpuDifferences = cpuPerImage.map((c, i) => c - directCpuPerImage[i]!);
      addedP50Us[scenario.name] = median(differences);
      addedCpuUs[scenario.name] = median(cpuDifferences);
      rows.push([
        scenario.name, us(median(baseline)), us(median(subject)), us(median(differences)),
        `${us(Math.min(...differences))} … ${us(Math.max(...differences))}`, us(median(directCpuPerImage)), us(median(cpuPerImage)),
        us(median(cpuDifferences)),
      ]);
    }
    const loadAfter = loadavg();
    console.log(`\nbench/images: ${rounds} paired rounds × ${imagesPerSide} images per side; load average ${loadBefore[0]!.toFixed(1)} before, ${loadAfter[0]!.toFixed(1)} after`);
    printTable(['scenario', 'direct p50 µs', 'gateway p50 µs', 'added p50 µs (median)', 'added range µs', 'direct CPU µs/image', 'gateway CPU µs/image', 'added CPU µs/image'], rows);
    const webhookRates = Number(process.env.BENCH_WEBHOOKS ?? 1000) > 0 ? await runWebhookDeliveryBenchmark() : [];
    return { addedP50Us, addedCpuUs, webhooks: webhookRates };
  } finally {
    await agent.close();
    await gateway?.stop();
  }
}
