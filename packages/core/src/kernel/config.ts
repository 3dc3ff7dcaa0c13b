/** The ids the three image models are published under (`$BERTH_IMAGE_MODEL_IDS`: `role=id` pairs). */
export interface ImageModelIds {
  /** Role `text_to_image`; default `imgmodel-1-schnell-fp8`. */
  readonly textToImage: string;
  /** Role `kontext_pro`; default `imgmodel-kontext-pro`. */
  readonly kontextPro: string;
  /** Role `kontext_max`; default `imgmodel-kontext-max`. */
  readonly kontextMax: string;
}

export const defaultImageModelIds: ImageModelIds = {
  textToImage: 'imgmodel-1-schnell-fp8',
  kontextPro: 'imgmodel-kontext-pro',
  kontextMax: 'imgmodel-kontext-max',
};

/** Gateway-wide settings given to `createGateway`. */
export interface GatewayConfig {
  /** Account created at first start when storage is empty (`$BERTH_ACCOUNT_ID`, default `my-account`). */
  readonly bootstrapAccountId: string;
  /**
   * API key of the bootstrap admin (`$BERTH_API_KEY`). When undefined a key is generated and logged once.
   */
  readonly bootstrapApiKey?: string;
  /** HMAC secret for page tokens. When undefined one is generated once and kept in storage (kv). */
  readonly pageTokenSecret?: string;
  /** Rejects JSON nested deeper than this (request bodies). */
  readonly maxJsonDepth: number;
  /**
   * Lets outbound requests to user-supplied URLs (webhooks, image URLs, MCP servers) reach loopback:
   * 127.0.0.0/8, ::1, `localhost` (`$BERTH_ALLOW_LOOPBACK_URLS=true`). For tests and local development only.
   */
  readonly allowLoopbackUrls: boolean;
  /**
   * Lets them reach private networks: 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7
   * (`$BERTH_ALLOW_PRIVATE_URLS=true`), e.g. MCP servers inside the cluster. Link-local (cloud metadata),
   * multicast and other special-purpose addresses stay refused whatever the settings.
   */
  readonly allowPrivateUrls: boolean;
  /**
   * The provider account that publishes the image models; it appears literally in the image paths
   * (`/inference/v1/workflows/accounts/{systemAccountId}/models/…`). `$BERTH_SYSTEM_ACCOUNT_ID`, default `system`.
   */
  readonly systemAccountId: string;
  /** Ids of the image models (existing image clients decide from the id whether to poll). */
  readonly imageModelIds: ImageModelIds;
  /**
   * Terms the reference safety checker refuses (case-insensitive, whole words) in image prompts
   * (`$BERTH_IMAGE_BLOCKED_TERMS`, comma-separated). Default none.
   */
  readonly imageBlockedTerms: readonly string[];
  /**
   * Terms whose outputs the reference safety checker refuses (`Content Moderated`) when a request's
   * safety_tolerance is below 2 (`$BERTH_IMAGE_SENSITIVE_TERMS`, comma-separated). Default none.
   */
  readonly imageSensitiveTerms: readonly string[];
  /**
   * How long a finished asynchronous image request (its status and image) is kept, ms; afterwards
   * get_result answers `Task not found` and the sample URL 400. Default 24 hours.
   */
  readonly imageRetentionMs: number;
  /**
   * Largest dataset file accepted, in bytes, by `:upload` (multipart, answered 413 past it) and by the
   * signed-URL flow (`$BERTH_MAX_DATASET_FILE_BYTES`, default 256 MiB).
   */
  readonly maxDatasetFileBytes: number;
  /**
   * Largest model file accepted by the signed-URL upload, in bytes, enforced while the file streams
   * (`$BERTH_MAX_MODEL_FILE_BYTES`, default 16 GiB).
   */
  readonly maxModelFileBytes: number;
  /** Largest total of one model's announced files, in bytes (`$BERTH_MAX_MODEL_BYTES`, default 256 GiB). */
  readonly maxModelBytes: number;
}

export const defaultGatewayConfig: GatewayConfig = {
  bootstrapAccountId: 'my-account',
  maxJsonDepth: 64,
  allowLoopbackUrls: false,
  allowPrivateUrls: false,
  systemAccountId: 'system',
  imageModelIds: defaultImageModelIds,
  imageBlockedTerms: [],
  imageSensitiveTerms: [],
  imageRetentionMs: 24 * 60 * 60 * 1000,
  maxDatasetFileBytes: 256 * 1024 * 1024,
  maxModelFileBytes: 16 * 1024 ** 3,
  maxModelBytes: 256 * 1024 ** 3,
};
