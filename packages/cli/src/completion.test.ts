import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from './cli.js';
import { completionScript } from './completion.js';
import { memoryStream, type CliIo } from './io.js';
import { Readable } from 'node:stream';

const io: CliIo = { stdout: memoryStream(), stderr: memoryStream(), stdin: Readable.from([]), env: {}, homeDir: tmpdir() };
const program = buildProgram(io);
const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Sources the bash script in a bash subprocess, completes `words` (the last is the word being typed), returns COMPREPLY. */
function completeBash(words: string[], cwd?: string): string[] {
  const script = completionScript(program, 'bash');
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const run = `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _berth; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', run], { encoding: 'utf8', ...(cwd ? { cwd } : {}) });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('bash completion (sourced and invoked in bash)', () => {
  it('registers _berth for berth', () => {
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', `${completionScript(program, 'bash')}\ncomplete -p berth`], { encoding: 'utf8' });
    expect(result.stdout.trim()).toBe('complete -F _berth berth');
  });

  it.each([
    [['berth', 'mod'], ['models']],
    [['berth', 'dep'], ['deployments', 'deployment-shapes', 'deployed-models']],
    [['berth', 'models', 'l'], ['list', 'ls']],
    [['berth', 'shapes', 'cr'], ['create']],
    [['berth', 'models', 'list', '--f'], ['--filter']],
    [['berth', '--profile', 'ci', 'deployments', 'sc'], ['scale']],
    [['berth', 'deployments', 'create', '--wa'], ['--wait']],
    [['berth', 'batch', 'w'], ['watch']],
    [['berth', 'rft', 're'], ['resume']],
    [['berth', '-o', ''], ['table', 'json', 'yaml']],
    [['berth', 'users', 'create', 'bob', '--role', 'a'], ['admin']],
    [['berth', 'completion', ''], ['bash', 'zsh', 'fish']],
    [['berth', 'api-keys', 'create', '--u'], ['--user']],
  ])('%j → %j', (words, expected) => {
    expect(completeBash(words).sort()).toEqual([...expected].sort());
  });

  it('offers global options inside a command, and file names for upload and --file', () => {
    expect(completeBash(['berth', 'models', 'get', '--prof'])).toEqual(['--profile']);
    const dir = mkdtempSync(join(tmpdir(), 'berth-completion-'));
    try {
      writeFileSync(join(dir, 'rows.jsonl'), '{}\n');
      expect(completeBash(['berth', 'datasets', 'upload', 'ro'], dir)).toEqual(['rows.jsonl']);
      expect(completeBash(['berth', 'models', 'upload', 'my-model', 'ro'], dir)).toEqual(['rows.jsonl']);
      expect(completeBash(['berth', 'models', 'update', 'm', '--file', 'r'], dir)).toEqual(['rows.jsonl']);
      expect(completeBash(['berth', 'models', 'list', 'r'], dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('zsh and fish completion', () => {
  it('are generated from the same command tree', () => {
    const zsh = completionScript(program, 'zsh');
    expect(zsh.startsWith('#compdef berth\n')).toBe(true);
    expect(zsh).toContain("'deployments|scale') echo 'deployments scale' ;;");
    expect(zsh).toContain("'--wait:wait until READY, showing state and replicas'");
    expect(zsh).toContain('compdef _berth berth');
    const fish = completionScript(program, 'fish');
    expect(fish).toContain("complete -c berth -f -n '__berth_at \\'batch\\'' -a 'watch' -d 'show jobProgress as a live bar until the job ends'");
    expect(fish).toContain("complete -c berth -s o -l output -x -a 'table json yaml' -d 'output format'");
  });

  it.runIf(has('zsh'))('zsh: the script parses and completes subcommands', () => {
    const script = completionScript(program, 'zsh');
    expect(spawnSync('zsh', ['-n', '-c', script], { encoding: 'utf8' }).status).toBe(0);
    // compadd/_describe exist only inside the completion system: stand-ins record what would be offered.
    const complete = (words: string) => {
      const run = `_describe() { print -l -- "\${items[@]%%:*}" }\ncompadd() { shift; print -l -- "$@" }\n${script}\nwords=(${words}); CURRENT=\${#words}; _berth`;
      const result = spawnSync('zsh', ['-f', '-c', run], { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      return result.stdout.split('\n').filter((l) => l !== '');
    };
    expect(complete("berth deployments ''")).toEqual(['create', 'get', 'list', 'ls', 'update', 'delete', 'rm', 'scale', 'undelete', 'watch']);
    expect(complete("berth models list --")).toEqual(expect.arrayContaining(['--filter', '--order-by', '--all', '--profile']));
    expect(complete("berth -o ''")).toEqual(['table', 'json', 'yaml']);
  });

  it.runIf(has('fish'))('fish: the script parses and completes subcommands', () => {
    const script = completionScript(program, 'fish');
    expect(spawnSync('fish', ['--no-execute', '-c', script], { encoding: 'utf8' }).status).toBe(0);
    const result = spawnSync('fish', ['--no-config', '-c', `${script}\ncomplete -C 'berth deployments '`], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const offered = result.stdout.split('\n').map((line) => line.split('\t')[0]);
    expect(offered).toEqual(expect.arrayContaining(['create', 'scale', 'undelete', 'watch']));
    const options = spawnSync('fish', ['--no-config', '-c', `${script}\ncomplete -C 'berth models list --'`], { encoding: 'utf8' });
    expect(options.stdout.split('\n').map((line) => line.split('\t')[0])).toEqual(expect.arrayContaining(['--filter', '--order-by', '--all', '--profile']));
  });
});
