import { templates, type TemplateId } from './templates.js';

/** The generated project's README: what it is, the two commands, and the template's own notes. */
export function projectReadme(options: { name: string; template: TemplateId; templateNotes?: string }): string {
  const info = templates[options.template];
  const lines = [
    `# ${options.name}`,
    '',
    `${info.title}, scaffolded by \`npm create berth\` from the Berth template \`${options.template}\`.`,
    '',
    '```sh',
  ];
  if (info.starts) lines.push(`npm install && npm start   # ${info.startNote ?? 'type-checks, builds and serves on http://127.0.0.1:8080'}`);
  lines.push('npm install && npm test    # runs the project\'s tests', '```', '');
  lines.push(...usage(options.template), '');
  if (options.templateNotes) lines.push('## About this template', '', options.templateNotes.replace(/^# .*\n+/, '').trim(), '');
  return `${lines.join('\n')}\n`;
}

function usage(template: TemplateId): string[] {
  switch (template) {
    case 'gateway':
      return [
        'The gateway runs on memory storage; set `DATABASE_URL` to run it on PostgreSQL instead. `HOST`, `PORT`,',
        '`BERTH_ACCOUNT_ID` and `BERTH_API_KEY` set where it listens and its first account and key. Its API',
        'reference is at `/docs`, its OpenAPI document at `/openapi.json`.',
      ];
    case 'gateway-postgres':
      return [
        'Set `DATABASE_URL` (e.g. `postgres://postgres@127.0.0.1:5432/berth`) before `npm start`; the schema is',
        'migrated at start and the queue workers run in the same process. Its API reference is at `/docs`.',
        'Deployments are served by the gpux and gpuy runtimes on their simulated provisioner (reference-engine',
        'replicas, no accelerators; `BERTH_RUNTIMES` picks them, `none` for none): see "About this template".',
      ];
    case 'runtime-plugin':
      return [
        'Rename `acme` to your vendor, describe your accelerator types in `src/acme-catalogue.ts`, and keep',
        '`npm test` green: it runs the runtime contract suite from `@berth/core/testing` unchanged.',
      ];
    case 'embed-fastify':
      return [
        '`src/main.ts` is a Fastify app with its own routes and Berth mounted under `/berth`',
        '(`app.register(berth, { gateway, prefix: \'/berth\' })`): the API is at `/berth/v1/...`, its reference',
        'at `/berth/docs`. Move those lines into your own app to embed Berth there.',
      ];
    case 'embed-express':
      return [
        '`src/app.ts` is an Express app with its own routes and Berth mounted under `/berth`',
        '(`app.use(await createBerthRequestHandler({ gateway, prefix: \'/berth\' }))`, before `express.json()`):',
        'the API is at `/berth/v1/...`, its reference at `/berth/docs`.',
      ];
    case 'embed-node-http':
      return [
        '`src/app.ts` is a plain node:http server whose listener hands `/berth/...` to Berth and everything',
        'else to your own code (`berth(req, res, () => yourApp(req, res))`): the API is at `/berth/v1/...`.',
      ];
    case 'in-process':
      return [
        '`src/model-catalog.ts` calls Berth\'s services directly (`gateway.resolve(coreServicesToken)`): the same',
        'validation, state machines and errors as the REST API, with no server and no JSON on the wire.',
      ];
  }
}
