/** The project kinds create-berth scaffolds, each from a folder of the Berth repository's templates/. */
export const templateIds = ['gateway', 'gateway-postgres', 'runtime-plugin', 'embed-fastify'] as const;
export type TemplateId = (typeof templateIds)[number];

export interface TemplateInfo {
  readonly id: TemplateId;
  /** The folder under templates/ its files come from. */
  readonly folder: string;
  readonly title: string;
  /** Whether `npm start` means anything (a runtime plugin is a library: it only has tests). */
  readonly starts: boolean;
}

export const templates: Readonly<Record<TemplateId, TemplateInfo>> = {
  gateway: { id: 'gateway', folder: 'gateway', title: 'Gateway on memory storage (PostgreSQL when DATABASE_URL is set)', starts: true },
  'gateway-postgres': { id: 'gateway-postgres', folder: 'gateway-postgres', title: 'Production gateway on PostgreSQL with the queue workers', starts: true },
  'runtime-plugin': { id: 'runtime-plugin', folder: 'runtime-plugin', title: 'Third-party runtime plugin for your accelerators', starts: false },
  'embed-fastify': { id: 'embed-fastify', folder: 'gateway', title: 'Embed Berth in an existing Fastify app (under /berth)', starts: true },
};

export function isTemplateId(value: string): value is TemplateId {
  return (templateIds as readonly string[]).includes(value);
}
