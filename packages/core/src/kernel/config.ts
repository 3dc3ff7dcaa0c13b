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
}

export const defaultGatewayConfig: GatewayConfig = {
  bootstrapAccountId: 'my-account',
  maxJsonDepth: 64,
  allowLoopbackUrls: false,
  allowPrivateUrls: false,
};
