/**
 * Shell completion scripts generated from the command tree itself (so every resource entry, flag and
 * choice is completed without a list kept by hand): bash, zsh and fish, each a static script.
 */
import type { Command, Option } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface OptionInfo {
  names: string[];
  description: string;
  takesValue: boolean;
  choices: readonly string[];
  file: boolean;
}

interface CommandNode {
  path: string;
  description: string;
  names: string[];
  options: OptionInfo[];
  children: CommandNode[];
  /** Completes file names for the positional argument (`datasets upload <file>`, `models upload <id> <paths...>`). */
  fileArgument: boolean;
  argumentChoices: readonly string[];
}

function optionInfo(option: Option): OptionInfo {
  return {
    names: [option.short, option.long].filter((n): n is string => n !== undefined),
    description: option.description,
    takesValue: option.required,
    choices: option.argChoices ?? [],
    file: option.long === '--file',
  };
}

function nodeOf(command: Command, parentPath: string): CommandNode {
  const path = parentPath === '' && command.parent === null ? '' : `${parentPath}${parentPath ? ' ' : ''}${command.name()}`;
  const args = command.registeredArguments;
  return {
    path,
    description: command.description(),
    names: [command.name(), ...command.aliases()],
    options: command.options.filter((o) => !o.hidden).map(optionInfo),
    children: command.commands.filter((c) => c.name() !== 'help').map((c) => nodeOf(c, path)),
    fileArgument: args.some((a) => a.name() === 'file' || a.name() === 'paths'),
    argumentChoices: args.flatMap((a) => a.argChoices ?? []),
  };
}

/** A command's own options and, below the root, the program's options (without --version). */
function optionsAt(m: Model, node: CommandNode): OptionInfo[] {
  return node === m.root ? node.options : [...node.options, ...m.globals.filter((o) => !o.names.includes('--version'))];
}

function walk(node: CommandNode): CommandNode[] {
  return [node, ...node.children.flatMap(walk)];
}

/** Single-quoted for sh / fish (no expansion inside). */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const fishQuote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

interface Model {
  root: CommandNode;
  nodes: CommandNode[];
  globals: OptionInfo[];
  valueOptions: Map<string, OptionInfo>;
}

function model(program: Command): Model {
  const root = nodeOf(program, '');
  const nodes = walk(root);
  const valueOptions = new Map<string, OptionInfo>();
  for (const node of nodes) for (const option of node.options) if (option.takesValue) for (const name of option.names) valueOptions.set(name, option);
  return { root, nodes, globals: root.options, valueOptions };
}

/** A shell function echoing the value of the first matching `case` arm (`[pattern, value]`). */
function echoCase(fn: string, subject: string, arms: Array<[pattern: string, value: string]>): string {
  return `${fn}() {\n  case "${subject}" in\n${arms.map(([pattern, value]) => `    ${pattern}) echo ${quote(value)} ;;`).join('\n')}\n  esac\n}\n`;
}

/** A shell function succeeding when its argument is one of `values`. */
function memberOf(fn: string, values: string[]): string {
  return `${fn}() {\n  case "$1" in\n    ${values.map(quote).join('|') || "''"}) return 0 ;;\n  esac\n  return 1\n}\n`;
}

/** Functions shared by bash and zsh: the next command path, the words and options of a path, options taking values, their choices. */
function shFunctions(m: Model, name: string): string {
  const byPath = (words: (node: CommandNode) => string[]) => m.nodes.map((node): [string, string] => [quote(node.path), words(node).join(' ')]);
  const values = [...m.valueOptions.entries()];
  return [
    echoCase(`__${name}_next`, '$1|$2', m.nodes.flatMap((node) => node.children.map((child): [string, string] => [child.names.map((n) => quote(`${node.path}|${n}`)).join('|'), child.path]))),
    echoCase(`__${name}_words`, '$1', byPath((node) => [...node.children.flatMap((c) => c.names), ...node.argumentChoices])),
    echoCase(`__${name}_options`, '$1', byPath((node) => optionsAt(m, node).flatMap((o) => o.names))),
    echoCase(`__${name}_choices`, '$1', values.filter(([, o]) => o.choices.length > 0).map(([flag, o]): [string, string] => [quote(flag), o.choices.join(' ')])),
    memberOf(`__${name}_takes_value`, values.map(([flag]) => flag)),
    memberOf(`__${name}_file_option`, values.filter(([, o]) => o.file).map(([flag]) => flag)),
    memberOf(`__${name}_file_argument`, m.nodes.filter((n) => n.fileArgument).map((n) => n.path)),
    // The command path of the words before the cursor (given as arguments): option values skipped.
    `__${name}_path() {
  local cmdpath="" next skip=0 w
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    if __${name}_takes_value "$w"; then skip=1; continue; fi
    case "$w" in -*) continue ;; esac
    next="$(__${name}_next "$cmdpath" "$w")"
    [ -n "$next" ] && cmdpath="$next"
  done
  echo "$cmdpath"
}
`,
  ].join('');
}

function bash(m: Model, name: string): string {
  return `# ${name} completion for bash. Load it with:  source <(${name} completion bash)
${shFunctions(m, name)}
_${name}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmdpath
  [[ $COMP_CWORD -gt 0 ]] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmdpath="$(__${name}_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  COMPREPLY=()
  if [[ $COMP_CWORD -gt 1 ]] && __${name}_takes_value "$prev"; then
    local choices
    choices="$(__${name}_choices "$prev")"
    if [[ -n "$choices" ]]; then
      COMPREPLY=($(compgen -W "$choices" -- "$cur"))
    elif __${name}_file_option "$prev"; then
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(__${name}_options "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(__${name}_words "$cmdpath")" -- "$cur"))
    __${name}_file_argument "$cmdpath" && COMPREPLY+=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _${name} ${name}
`;
}

function zsh(m: Model, name: string): string {
  const describe = m.nodes.map((node) => {
    const clean = (items: string[]) => items.map((item) => quote(item.replace(/\n/g, ' '))).join(' ');
    const commands = [...node.children.flatMap((c) => c.names.map((n) => `${n}:${c.description}`)), ...node.argumentChoices.map((c) => `${c}:${c}`)];
    const options = optionsAt(m, node).flatMap((o) => o.names.map((n) => `${n}:${o.description}`));
    return `    ${quote(node.path)}) commands=(${clean(commands)}); options=(${clean(options)}) ;;`;
  });
  return `#compdef ${name}
# ${name} completion for zsh. Load it with:  source <(${name} completion zsh)   (after compinit)
${shFunctions(m, name)}
_${name}() {
  local cmdpath prev choices
  local -a items commands options
  cmdpath="$(__${name}_path "\${(@)words[2,CURRENT-1]}")"
  prev="\${words[CURRENT-1]}"
  if (( CURRENT > 2 )) && __${name}_takes_value "$prev"; then
    choices="$(__${name}_choices "$prev")"
    if [[ -n "$choices" ]]; then compadd -- \${=choices}
    elif __${name}_file_option "$prev"; then _files
    fi
    return
  fi
  case "$cmdpath" in
${describe.join('\n')}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    items=("\${options[@]}")
    _describe -t options '${name} options' items
  else
    items=("\${commands[@]}")
    _describe -t commands '${name}' items
    __${name}_file_argument "$cmdpath" && _files
  fi
}
if (( $+functions[compdef] )); then compdef _${name} ${name}; fi
`;
}

function fish(m: Model, name: string): string {
  const next = m.nodes.flatMap((node) => node.children.map((child) => `        case ${child.names.map((n) => fishQuote(`${node.path}|${n}`)).join(' ')}\n            echo ${fishQuote(child.path)}`));
  const takes = [...m.valueOptions.keys()].map(fishQuote).join(' ');
  const lines: string[] = [];
  const optionLine = (condition: string | undefined, o: OptionInfo) => {
    const parts = ['complete -c', name];
    if (condition !== undefined) parts.push('-n', fishQuote(condition));
    for (const n of o.names) parts.push(n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`);
    if (o.takesValue) parts.push(o.file ? '-r -F' : '-x');
    if (o.choices.length > 0) parts.push('-a', fishQuote(o.choices.join(' ')));
    parts.push('-d', fishQuote(o.description));
    return parts.join(' ');
  };
  for (const o of m.globals) lines.push(optionLine(undefined, o));
  for (const node of m.nodes) {
    const at = `__${name}_at ${fishQuote(node.path)}`;
    for (const child of node.children) for (const n of child.names) lines.push(`complete -c ${name} -f -n ${fishQuote(at)} -a ${fishQuote(n)} -d ${fishQuote(child.description)}`);
    if (node.argumentChoices.length > 0) lines.push(`complete -c ${name} -f -n ${fishQuote(at)} -a ${fishQuote(node.argumentChoices.join(' '))}`);
    if (node !== m.root) for (const o of node.options) lines.push(optionLine(at, o));
    if (node.fileArgument) lines.push(`complete -c ${name} -F -n ${fishQuote(at)}`);
  }
  return `# ${name} completion for fish. Load it with:  ${name} completion fish | source
function __${name}_next
    switch "$argv[1]|$argv[2]"
${next.join('\n')}
    end
end
function __${name}_path
    set -l cmdpath ''
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $w ${takes}
            set skip 1
            continue
        end
        if string match -q -- '-*' $w
            continue
        end
        set -l next (__${name}_next "$cmdpath" $w)
        if test -n "$next"
            set cmdpath $next
        end
    end
    echo $cmdpath
end
function __${name}_at
    test (__${name}_path) = "$argv[1]"
end
complete -c ${name} -f
${lines.join('\n')}
`;
}

export function completionScript(program: Command, shell: Shell): string {
  const m = model(program);
  const name = program.name();
  if (shell === 'bash') return bash(m, name);
  if (shell === 'zsh') return zsh(m, name);
  return fish(m, name);
}
