/** The project kinds create-berth scaffolds, each from a folder of the Berth repository's templates/ or examples/. */
export const templateIds = ['gateway', 'gateway-postgres', 'runtime-plugin', 'embed-fastify', 'embed-express', 'embed-node-http', 'in-process'] as const;
export type TemplateId = (typeof templateIds)[number];

export interface TemplateInfo {
  readonly id: TemplateId;
  /** The folder its files come from, under templates/ or, for the example projects, examples/. */
  readonly folder: string;
  readonly under: 'templates' | 'examples';
  readonly title: string;
  /** Whether `npm start` means anything (a runtime plugin is a library: it only has tests). */
  readonly starts: boolean;
  /** What `npm start` does, when it does not serve on http://127.0.0.1:8080. */
  readonly startNote?: string;
}

export const templates: Readonly<Record<TemplateId, TemplateInfo>> = {
  gateway: { id: 'gateway', folder: 'gateway', under: 'templates', title: 'Gateway on memory storage (PostgreSQL when DATABASE_URL is set)', starts: true },
  'gateway-postgres': { id: 'gateway-postgres', folder: 'gateway-postgres', under: 'templates', title: 'Production gateway on PostgreSQL with the queue workers', starts: true },
  'runtime-plugin': { id: 'runtime-plugin', folder: 'runtime-plugin', under: 'templates', title: 'Third-party runtime plugin for your accelerators', starts: false },
  'embed-fastify': { id: 'embed-fastify', folder: 'gateway', under: 'templates', title: 'Embed Berth in an existing Fastify app (under /berth)', starts: true },
  'embed-express': { id: 'embed-express', folder: 'embed-express', under: 'examples', title: 'Embed Berth in an existing Express app (under /berth)', starts: true },
  'embed-node-http': { id: 'embed-node-http', folder: 'embed-node-http', under: 'examples', title: 'Embed Berth in an existing plain node:http server (under /berth)', starts: true },
  'in-process': {
    id: 'in-process',
    folder: 'in-process',
    under: 'examples',
    title: 'Call Berth\'s services in process, with no HTTP at all',
    starts: true,
    startNote: 'type-checks, builds and runs src/main.ts (no server)',
  },
};

export function isTemplateId(value: string): value is TemplateId {
  return (templateIds as readonly string[]).includes(value);
}
