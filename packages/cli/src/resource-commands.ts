/** The generic commands of one resource kind (create / get / list / update / delete, custom methods, watch), from its entry. */
import { Option, type Command } from 'commander';
import type { GatewayClient } from './client.js';
import { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { printData, resourceTable } from './output.js';
import type { FieldFlag, QueryFlag, ResourceSpec } from './resource-spec.js';
import { buildBody, camel, readBodyFile, shortName, type JsonObject } from './values.js';
import { watchKinds, watchResource } from './watch.js';

type Options = Record<string, unknown>;

const collect = (value: string, previous: string[] = []) => [...previous, value];

function positiveInt(name: string) {
  return (text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${name} must be a positive integer, got "${text}"`);
    return Number(text);
  };
}

function addFieldFlags(command: Command, fields: readonly FieldFlag[]): void {
  for (const field of fields) {
    const placeholder = field.type === 'bool' ? '[true|false]' : field.placeholder ?? '<value>';
    const option = new Option(`--${field.flag} ${placeholder}`, field.description);
    if (field.choices) option.choices(field.choices);
    if (field.required) option.makeOptionMandatory();
    command.addOption(option);
  }
}

function addQueryFlags(command: Command, flags: readonly QueryFlag[] = []): void {
  for (const flag of flags) command.option(flag.type === 'bool' ? `--${flag.flag}` : `--${flag.flag} <value>`, flag.description);
}

function queryOf(flags: readonly QueryFlag[] = [], options: Options): Record<string, string | boolean | undefined> {
  return Object.fromEntries(flags.map((f) => [f.param, options[camel(f.flag)] as string | boolean | undefined]));
}

function addBodyFlags(command: Command): void {
  command
    .option('-f, --file <path>', 'request body as JSON or YAML ("-" reads standard input); flags override its fields')
    .option('--set <path=value>', 'set any field by dotted path (value read as JSON when it parses), repeatable', collect);
}

function addWaitFlags(command: Command, what: string): void {
  command
    .option('--timeout <seconds>', `give up waiting for ${what} after this many seconds`, positiveInt('--timeout'), 1800)
    .option('--interval <ms>', 'poll interval in milliseconds', positiveInt('--interval'), 1000);
}

/** `/v1/accounts/{account}[/{parent}/{parentId}]/{collection}`. */
function collectionPath(spec: ResourceSpec, client: GatewayClient, options: Options): string {
  let prefix = '';
  if (spec.parent) {
    const parentId = options[camel(spec.parent.flag)];
    if (typeof parentId !== 'string' || parentId === '') throw new UsageError(`--${spec.parent.flag} is required`);
    prefix = `/${spec.parent.collection}/${encodeURIComponent(shortName(parentId))}`;
  }
  return client.accountPath(`${prefix}/${spec.collection}`);
}

function itemPath(spec: ResourceSpec, client: GatewayClient, options: Options, id: string): string {
  return `${collectionPath(spec, client, options)}/${encodeURIComponent(shortName(id))}`;
}

async function bodyFrom(io: CliIo, options: Options, fields: readonly FieldFlag[]) {
  const file = typeof options.file === 'string' ? await readBodyFile(options.file, io.stdin) : undefined;
  return buildBody({ ...(file ? { file } : {}), options, fields, sets: (options.set as string[] | undefined) ?? [] });
}

async function watch(ctx: CommandContext, spec: ResourceSpec, client: GatewayClient, path: string, id: string, options: Options): Promise<JsonObject> {
  const kind = watchKinds[spec.watch!];
  return watchResource({
    stream: ctx.progressStream,
    label: `${spec.command} ${shortName(id)}`,
    intervalMs: options.interval as number,
    timeoutMs: (options.timeout as number) * 1000,
    fetch: () => client.request<JsonObject>('GET', path),
    view: kind.view,
    outcome: kind.outcome,
  });
}

/** Registers `berth <resource> …` on `program`; returns the group command (for extra subcommands). */
export function registerResource(program: Command, spec: ResourceSpec, io: CliIo): Command {
  const group = program.command(spec.command).description(`${spec.singular}s: ${spec.operations.join(', ')}${spec.methods ? `, ${spec.methods.map((m) => m.command).join(', ')}` : ''}`);
  for (const alias of spec.aliases ?? []) group.alias(alias);
  const withParent = (command: Command) => {
    if (spec.parent) command.requiredOption(`--${spec.parent.flag} <id>`, spec.parent.description);
    return command;
  };
  const run = (handler: (ctx: CommandContext, client: GatewayClient, args: string[], options: Options) => Promise<void>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const ctx = CommandContext.of(io, command);
      await handler(ctx, await ctx.client(), command.args, command.opts());
    };

  if (spec.operations.includes('create')) {
    const create = spec.create ?? { id: 'none' };
    const command = withParent(group.command('create').description(`create a ${spec.singular}`));
    if (create.id !== 'none') command.argument(create.idRequired ? '<id>' : '[id]', `${spec.singular} id`);
    addFieldFlags(command, spec.fields);
    addBodyFlags(command);
    addQueryFlags(command, spec.createFlags);
    if (spec.watch) {
      command.option('--wait', watchKinds[spec.watch].waitHelp);
      addWaitFlags(command, `the ${spec.singular}`);
    }
    command.action(run(async (ctx, client, args, options) => {
      const { body } = await bodyFrom(io, options, spec.fields);
      const id = args[0];
      const query: Record<string, string | boolean | undefined> = queryOf(spec.createFlags, options);
      let payload: unknown = body;
      if (create.id === 'query' && id !== undefined) query[create.idParam!] = shortName(id);
      if (create.id === 'body') payload = { [create.idParam!]: id, [create.bodyKey!]: body };
      else if (create.bodyKey) payload = { [create.bodyKey]: body };
      let result = await client.request<JsonObject>('POST', collectionPath(spec, client, options), { query, body: payload });
      if (options.wait && typeof result.name === 'string') result = await watch(ctx, spec, client, itemPath(spec, client, options, result.name), result.name, options);
      ctx.printResource(result);
    }));
  }

  if (spec.operations.includes('get')) {
    withParent(group.command('get').description(`show a ${spec.singular}`).argument('<id>', `${spec.singular} id or name`))
      .option('--read-mask <paths>', 'comma-separated fields to return')
      .action(run(async (ctx, client, [id], options) => {
        ctx.printResource(await client.request('GET', itemPath(spec, client, options, id!), { query: { readMask: options.readMask as string | undefined } }));
      }));
  }

  if (spec.operations.includes('list')) {
    const command = withParent(group.command('list').alias('ls').description(`list ${spec.singular}s`))
      .option('--filter <expr>', 'AIP-160 filter, e.g. \'state = "READY"\'')
      .option('--order-by <fields>', 'e.g. "createTime desc"')
      .option('--page-size <n>', 'results per page', positiveInt('--page-size'))
      .option('--page-token <token>', 'the nextPageToken of a previous page')
      .option('--all', 'follow nextPageToken until the last page');
    addQueryFlags(command, spec.listFlags);
    command.action(run(async (ctx, client, _args, options) => {
      const items: unknown[] = [];
      let pageToken = options.pageToken as string | undefined;
      let last: JsonObject;
      for (;;) {
        last = await client.request<JsonObject>('GET', collectionPath(spec, client, options), {
          query: {
            filter: options.filter as string | undefined,
            orderBy: options.orderBy as string | undefined,
            pageSize: options.pageSize as number | undefined,
            pageToken,
            ...queryOf(spec.listFlags, options),
          },
        });
        items.push(...((last[spec.listKey] as unknown[] | undefined) ?? []));
        pageToken = typeof last.nextPageToken === 'string' && last.nextPageToken !== '' ? last.nextPageToken : undefined;
        if (!options.all || pageToken === undefined) break;
      }
      if (ctx.format !== 'table') {
        printData(io.stdout, ctx.format, options.all ? { [spec.listKey]: items, totalSize: last.totalSize ?? items.length } : { ...last, [spec.listKey]: items });
        return;
      }
      io.stdout.write(resourceTable(spec.columns, items));
      if (pageToken !== undefined) io.stderr.write(`more results: --page-token ${pageToken} (or --all)\n`);
    }));
  }

  if (spec.operations.includes('update')) {
    const fields = spec.fields.filter((f) => !f.createOnly);
    const command = withParent(group.command('update').description(`change a ${spec.singular} (only the fields given: the update mask)`).argument('<id>', `${spec.singular} id or name`));
    addFieldFlags(command, fields);
    addBodyFlags(command);
    command.option('--etag <etag>', 'update only this version (AIP-154)');
    command.action(run(async (ctx, client, [id], options) => {
      const { body, paths } = await bodyFrom(io, options, fields);
      if (paths.length === 0) throw new UsageError(`nothing to update: give at least one of --${fields.map((f) => f.flag).join(', --')}, --set or --file`);
      if (typeof options.etag === 'string') body.etag = options.etag;
      // The gateway checks a body's name against the path (users require it): send the full name.
      body.name = `accounts/${client.account}/${spec.collection}/${shortName(id!)}`;
      ctx.printResource(await client.request('PATCH', itemPath(spec, client, options, id!), { query: { updateMask: paths.join(',') }, body }));
    }));
  }

  if (spec.operations.includes('delete')) {
    const command = withParent(group.command('delete').alias('rm').description(`delete a ${spec.singular}`).argument('<id>', `${spec.singular} id or name`));
    addQueryFlags(command, spec.deleteFlags);
    command.option('--etag <etag>', 'delete only this version (AIP-154)');
    command.action(run(async (ctx, client, [id], options) => {
      const result = await client.request('DELETE', itemPath(spec, client, options, id!), { query: { ...queryOf(spec.deleteFlags, options), etag: options.etag as string | undefined } });
      ctx.printMessage(`deleted ${spec.singular} ${shortName(id!)}`, result);
    }));
  }

  for (const method of spec.methods ?? []) {
    const command = withParent(group.command(method.command).description(method.description).argument('<id>', `${spec.singular} id or name`));
    addFieldFlags(command, method.fields ?? []);
    command.action(run(async (ctx, client, [id], options) => {
      const { body } = buildBody({ options, fields: method.fields ?? [], sets: [] });
      const result = await client.request<JsonObject>(method.method, `${itemPath(spec, client, options, id!)}:${method.verb}`, { body });
      if (Object.keys(result).length === 0) ctx.printMessage(`${method.done} ${spec.singular} ${shortName(id!)}`, result);
      else ctx.printResource(result);
    }));
  }

  if (spec.watch) {
    const command = withParent(group.command('watch').description(watchKinds[spec.watch].watchHelp).argument('<id>', `${spec.singular} id or name`));
    addWaitFlags(command, `the ${spec.singular}`);
    command.action(run(async (ctx, client, [id], options) => {
      ctx.printResource(await watch(ctx, spec, client, itemPath(spec, client, options, id!), id!, options));
    }));
  }
  return group;
}
