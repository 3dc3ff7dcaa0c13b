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
}

export const defaultGatewayConfig: GatewayConfig = {
  bootstrapAccountId: 'my-account',
  maxJsonDepth: 64,
};
