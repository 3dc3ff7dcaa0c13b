import type { RequestContext } from '../contracts/request-context.js';

/** The two encodings every image engine produces. */
export type ImageFormat = 'png' | 'jpeg';

/** An image as bytes with its media type (`image/png`, `image/jpeg`, …). */
export interface ImageBytes {
  readonly bytes: Uint8Array;
  readonly contentType: string;
}

/** One generation or edit, already validated: sizes, seed and defaults are resolved by the caller. */
export interface ImageGenerationRequest {
  /** The image model's role: `text_to_image`, `kontext_pro` or `kontext_max`. */
  readonly role: string;
  /** The model id the client named (e.g. `imgmodel-kontext-pro`). */
  readonly model: string;
  readonly prompt: string;
  /** Pixels; multiples of 16 between 256 and 2048. */
  readonly width: number;
  readonly height: number;
  /** The seed used (never 0: the caller draws a random one for 0). */
  readonly seed: number;
  readonly guidanceScale: number;
  readonly steps: number;
  readonly format: ImageFormat;
  /** The client let the engine rewrite the prompt (`prompt_upsampling`); engines without a rewriter ignore it. */
  readonly promptUpsampling?: boolean;
  /** The image to edit (kontext with input_image); its bytes were checked to be an image. */
  readonly inputImage?: ImageBytes;
}

/** What an engine made: the image in the requested format and size. */
export interface GeneratedImage extends ImageBytes {
  readonly width: number;
  readonly height: number;
}

/**
 * Generates images. Runtime plugins contribute engines to `imageEnginesToken` (the simulated pool a
 * reference engine that draws with sharp; real accelerators a client of an upstream image server);
 * the images service uses the first one contributed.
 *
 * Throws `GatewayError`s only: INVALID_ARGUMENT for an input image the engine cannot read,
 * UNAVAILABLE when the engine cannot be reached or fails, DEADLINE_EXCEEDED or CANCELLED when the
 * context's deadline passes or its signal aborts.
 */
export interface ImageEngine {
  /** A short name for logs and errors, e.g. `reference` or `upstream http://images:8000`. */
  readonly name: string;
  generate(ctx: RequestContext, request: ImageGenerationRequest): Promise<GeneratedImage>;
  /** Releases what the engine holds (connections); called when the gateway stops. */
  close?(): Promise<void>;
}

/** A safety verdict: allowed, or refused with the reasons a client may see. */
export type SafetyVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reasons: readonly string[] };

/** What a prompt check sees. */
export interface PromptReview {
  readonly prompt: string;
  /** 0 (strictest) to 6 (least strict). text_to_image uses the default, 2. */
  readonly safetyTolerance: number;
  /** True when the request edits an input image. */
  readonly hasInputImage: boolean;
}

/** What an output check sees: the request's prompt and tolerance and the image made. */
export interface ImageReview extends PromptReview {
  readonly image: GeneratedImage;
}

/**
 * Decides whether a request may run (a refused prompt is `Request Moderated` on the asynchronous
 * endpoint) and whether its output may be returned (`Content Moderated`; `CONTENT_FILTERED` on
 * text_to_image). Bound to `safetyCheckerToken`; core binds the reference checker (a list of blocked
 * terms), which a plugin may override. Throws UNAVAILABLE when it cannot decide.
 */
export interface SafetyChecker {
  reviewPrompt(ctx: RequestContext, review: PromptReview): Promise<SafetyVerdict>;
  reviewImage(ctx: RequestContext, review: ImageReview): Promise<SafetyVerdict>;
}
