#!/usr/bin/env node
import { homedir } from 'node:os';
import { run } from './cli.js';

// Ctrl+C during a redrawn progress line: end the line so the shell prompt starts on its own.
process.once('SIGINT', () => {
  if (process.stdout.isTTY) process.stdout.write('\n');
  process.exit(130);
});

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  homeDir: homedir(),
});
