import { invalidArgument } from '../errors/gateway-error.js';
import type { GeneratedImage, ImageEngine, ImageGenerationRequest } from '../ports/image-engine.js';
import { contentTypeOf, loadSharp } from './image-codec.js';
import { createPrng } from './generate.js';

/** Options of the reference image engine. */
export interface ReferenceImageEngineOptions {
  /** Extra time per image before it is drawn (simulating an accelerator's work). Default 0. */
  readonly delayMs?: number;
}

/** The drawing is made at this fraction of the output size, then scaled up smoothly by sharp. */
const SKETCH_SCALE = 8;

/** Everything that decides the picture, as the seed text of the generator. */
function seedTextOf(request: ImageGenerationRequest): string {
  return `image\u0000${request.prompt}\u0000${request.seed}\u0000${request.steps}\u0000${request.guidanceScale}`;
}

interface Blob {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
  readonly color: readonly [number, number, number];
}

/**
 * Draws the sketch: a two-colour gradient and one soft disc per denoising step (plus three), colours
 * from the prompt and seed, contrast from the guidance scale. RGBA, `alpha` everywhere.
 */
function sketch(request: ImageGenerationRequest, width: number, height: number, alpha: number): Uint8Array {
  const random = createPrng(seedTextOf(request));
  const colour = (): [number, number, number] => [random() * 255, random() * 255, random() * 255];
  const top = colour();
  const bottom = colour();
  const contrast = Math.min(1, 0.35 + request.guidanceScale / 10);
  const blobs: Blob[] = [];
  for (let i = 0; i < 3 + Math.min(request.steps, 50); i += 1) {
    blobs.push({ x: random() * width, y: random() * height, radius: (0.08 + random() * 0.3) * Math.min(width, height), color: colour() });
  }
  const pixels = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const t = y / Math.max(1, height - 1);
    for (let x = 0; x < width; x += 1) {
      let r = top[0] + (bottom[0] - top[0]) * t;
      let g = top[1] + (bottom[1] - top[1]) * t;
      let b = top[2] + (bottom[2] - top[2]) * t;
      for (const blob of blobs) {
        const dx = x - blob.x;
        const dy = y - blob.y;
        const falloff = 1 - Math.sqrt(dx * dx + dy * dy) / blob.radius;
        if (falloff <= 0) continue;
        const weight = Math.min(1, falloff * 2) * contrast;
        r += (blob.color[0] - r) * weight;
        g += (blob.color[1] - g) * weight;
        b += (blob.color[2] - b) * weight;
      }
      const at = (y * width + x) * 4;
      pixels[at] = r;
      pixels[at + 1] = g;
      pixels[at + 2] = b;
      pixels[at + 3] = alpha;
    }
  }
  return pixels;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * The image engine of the simulated accelerator pool: draws a real image (gradient and soft discs)
 * that depends only on the prompt, seed, steps and guidance scale, at the requested size, in PNG or
 * JPEG, with sharp. With an input image it edits: the input, cropped to the requested size, under a
 * translucent drawing. It runs in process: no accelerator, no network.
 */
export function referenceImageEngine(options: ReferenceImageEngineOptions = {}): ImageEngine {
  return {
    name: 'reference',
    async generate(ctx, request): Promise<GeneratedImage> {
      if (options.delayMs) await sleep(options.delayMs, ctx.signal);
      const sharp = await loadSharp();
      const { width, height } = request;
      const sketchWidth = Math.max(1, Math.round(width / SKETCH_SCALE));
      const sketchHeight = Math.max(1, Math.round(height / SKETCH_SCALE));
      const alpha = request.inputImage ? 110 : 255;
      const raw = { width: sketchWidth, height: sketchHeight, channels: 4 as const };
      let image = sharp(sketch(request, sketchWidth, sketchHeight, alpha), { raw }).resize(width, height, { kernel: 'cubic' });
      if (request.inputImage) {
        const overlay = await image.png().toBuffer();
        let base;
        try {
          base = await sharp(request.inputImage.bytes).rotate().resize(width, height, { fit: 'cover' }).toBuffer();
        } catch {
          throw invalidArgument('input_image is not a readable image', { field: 'input_image' });
        }
        image = sharp(base).composite([{ input: overlay }]);
      }
      const encoded = request.format === 'png'
        ? await image.removeAlpha().png({ compressionLevel: 6 }).toBuffer()
        : await image.removeAlpha().jpeg({ quality: 90 }).toBuffer();
      return { bytes: new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength), contentType: contentTypeOf(request.format), width, height };
    },
  };
}
