/**
 * The program of a JavaScript sandbox process, written to a file and run by plain `node` (no loader)
 * under the permission model. It reads one JSON call per line on stdin and answers one JSON line on
 * stdout. Each call runs in a fresh `vm` context that holds only the language's own built-ins and a
 * `console` that records lines: no `require`, `process`, timers, `fetch` or any other host object is
 * ever put there, and the host touches only strings that come out of it (a thrown value or result is
 * turned into a string inside the context, under the call's time limit).
 *
 * Before reading any call the process locks its own realm down, as a second wall behind the context:
 * module loading refused, `process.binding`/`dlopen` and the network globals removed, environment
 * emptied. The parent runs it with `--disallow-code-generation-from-strings` (the host realm's
 * `Function` cannot compile), the permission model (file system: its own script and a scratch
 * directory; no child processes, workers or addons), `--max-old-space-size`, and, where the host
 * allows it, in a network namespace of its own with no interface (`unshare -rn`).
 *
 * Call: `{id, key, source?, filename?, input, timeoutMs}`; `source` defines `__berthModule` (see
 * `compileJavaScriptCriterion`) and is sent the first time the process sees `key`.
 * Answer: `{id, result}` where `result` is the string the context produced (`{kind, value, logs}` as
 * JSON), or `{id, error: {code, message}}` (`TIMEOUT`, `MISSING_SOURCE`, `COMPILE`, `NO_RESULT`, `THREW`).
 * `{id, op: 'selfcheck'}` answers what the host realm can still reach (for the sandbox's own tests).
 */
export const sandboxChildSource = String.raw`'use strict';
const vm = require('node:vm');
const types = require('node:util').types;
const stdin = process.stdin;
const stdout = process.stdout;
const exit = process.exit.bind(process);

(function lockdown() {
  const Module = require('node:module');
  const refuse = function () { throw new Error('module loading is disabled in the evaluator sandbox'); };
  Module._load = refuse;
  Module.prototype.require = refuse;
  for (const key of ['binding', '_linkedBinding', 'dlopen', 'chdir', 'kill', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups']) {
    try { process[key] = undefined; } catch (e) { /* not writable */ }
  }
  for (const key of Object.keys(process.env)) delete process.env[key];
  for (const key of ['fetch', 'WebSocket', 'EventSource', 'Request', 'Response', 'Headers', 'FormData', 'navigator']) {
    try { delete globalThis[key]; } catch (e) { /* not configurable */ }
  }
})();

const MAX_SCRIPTS = 64;
const scripts = new Map();
const prelude = new vm.Script(
  'globalThis.__berthLogs = [];' +
  '(function () { var logs = globalThis.__berthLogs; function record() { if (logs.length >= 50) return; var parts = [];' +
  ' for (var i = 0; i < arguments.length; i++) { var a = arguments[i]; try { parts.push(typeof a === "string" ? a : JSON.stringify(a)); } catch (e) { parts.push(String(a)); } }' +
  ' logs.push(parts.join(" ").slice(0, 500)); }' +
  ' globalThis.console = { log: record, info: record, warn: record, error: record, debug: record }; })();',
  { filename: 'berth-prelude.js' },
);
const callSource = (
  '(function () {' +
  ' var state = { done: false, out: undefined }; globalThis.__berthState = state;' +
  ' function describe(e) { try { if (e !== null && typeof e === "object" && typeof e.message === "string") return String((e.name || "Error") + ": " + e.message).slice(0, 2000);' +
  '   return String(e).slice(0, 2000); } catch (x) { return "an exception that cannot be described"; } }' +
  ' function settle(kind, value) { if (state.done) return; state.done = true;' +
  '   try { state.out = JSON.stringify({ kind: kind, value: value, logs: globalThis.__berthLogs }); }' +
  '   catch (e) { state.out = JSON.stringify({ kind: "error", value: "the result cannot be serialised: " + describe(e) }); } }' +
  ' try {' +
  '   var loaded = __berthModule(); var fn = loaded.exports == null ? undefined : loaded.exports[loaded.entryFunc];' +
  '   if (typeof fn !== "function" && loaded.exports != null && loaded.exports.default != null) fn = loaded.exports.default[loaded.entryFunc];' +
  '   if (typeof fn !== "function") { settle("error", "the entry file does not export a function named " + loaded.entryFunc); return; }' +
  '   var result = fn(JSON.parse(globalThis.__berthInput));' +
  '   if (result !== null && typeof result === "object" && typeof result.then === "function") {' +
  '     result.then(function (v) { settle("ok", v); }, function (e) { settle("error", describe(e)); });' +
  '   } else settle("ok", result);' +
  ' } catch (e) { settle("error", describe(e)); }' +
  '})();'
);
const collect = new vm.Script('globalThis.__berthState && globalThis.__berthState.done ? globalThis.__berthState.out : undefined', { filename: 'berth-collect.js' });

function isTimeout(error) {
  return !types.isProxy(error) && error instanceof Error && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

/** What the host realm can still reach after the lockdown (the tests check that the answer is nothing). */
function selfCheck() {
  const reach = {};
  try { require('node:net'); reach.require = true; } catch (e) { reach.require = false; }
  reach.binding = typeof process.binding === 'function';
  reach.fetch = typeof globalThis.fetch === 'function';
  reach.env = Object.keys(process.env).length > 0;
  try { Function('return 1'); reach.codeFromStrings = true; } catch (e) { reach.codeFromStrings = false; }
  return { result: JSON.stringify(reach) };
}

function run(message) {
  if (message.op === 'selfcheck') return selfCheck();
  let script = scripts.get(message.key);
  if (script === undefined) {
    if (typeof message.source !== 'string') return { error: { code: 'MISSING_SOURCE', message: 'source needed' } };
    try {
      // The criterion's module and the call in one script: one timed run per call instead of two.
      script = new vm.Script(message.source + '\n;' + callSource, { filename: message.filename || 'evaluator.js' });
    } catch (error) {
      return { error: { code: 'COMPILE', message: isTimeout(error) || types.isProxy(error) ? 'compile error' : String(error && error.message).slice(0, 2000) } };
    }
    if (scripts.size >= MAX_SCRIPTS) scripts.delete(scripts.keys().next().value);
    scripts.set(message.key, script);
  }
  const context = vm.createContext(Object.create(null), { name: 'evaluator', codeGeneration: { strings: true, wasm: false }, microtaskMode: 'afterEvaluate' });
  context.__berthInput = String(message.input);
  const deadline = Date.now() + message.timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  try {
    // The prelude is the sandbox's own code and runs before any of the criterion's: no timer needed.
    prelude.runInContext(context);
    script.runInContext(context, { timeout: remaining() });
    const out = collect.runInContext(context, { timeout: remaining() });
    if (typeof out !== 'string') return { error: { code: 'NO_RESULT', message: 'the function did not settle (timers and I/O are not available in the sandbox)' } };
    return { result: out };
  } catch (error) {
    if (isTimeout(error) || Date.now() >= deadline) return { error: { code: 'TIMEOUT', message: 'the evaluator ran past its time limit of ' + message.timeoutMs + ' ms' } };
    return { error: { code: 'THREW', message: 'the evaluator threw outside its function' } };
  }
}

let buffer = '';
stdin.setEncoding('utf8');
stdin.on('data', function (chunk) {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    let message;
    try { message = JSON.parse(line); } catch (e) { exit(2); }
    const answer = run(message);
    answer.id = message.id;
    stdout.write(JSON.stringify(answer) + '\n');
  }
});
stdin.on('end', function () { exit(0); });
`;
