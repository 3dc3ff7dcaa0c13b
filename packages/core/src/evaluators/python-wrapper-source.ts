/**
 * The program that runs one Python criterion call (`python3 -I -B wrapper.py`, empty environment,
 * working directory a fresh scratch directory holding the criterion's files). It reads
 * `{op, entryFile, entryFunc, input, cpuSeconds, memoryBytes, scratch}` as JSON on stdin and writes one
 * JSON line to the stdout it had at start (`print` in the criterion goes to the recorded logs).
 *
 * Before the criterion's code is imported it sets resource limits (CPU seconds, address space, file
 * size, no core dumps) and installs an audit hook, which cannot be removed afterwards, refusing: opening
 * files outside the scratch directory and Python's own installation (writes only inside scratch),
 * sockets, processes (`subprocess`, `os.system`, `os.exec*`, `os.spawn*`, `os.fork`, `pty`), `ctypes`
 * and changing the environment. The parent adds the wall-clock limit (SIGKILL of the process group) and,
 * where the host allows it, a network namespace with no interface.
 *
 * `op: "check"` compiles every file and reports the first syntax error instead of running anything.
 */
export const pythonWrapperSource = String.raw`import sys, os, json, io, resource

request = json.loads(sys.stdin.read())
out = os.fdopen(os.dup(1), 'w')
scratch = os.path.realpath(request['scratch'])

def answer(obj):
    out.write(json.dumps(obj) + '\n')
    out.flush()

if request.get('op') == 'check':
    for name in sorted(os.listdir(scratch)):
        if not name.endswith('.py'):
            continue
        with open(os.path.join(scratch, name), 'r', encoding='utf-8') as f:
            text = f.read()
        try:
            compile(text, name, 'exec')
        except SyntaxError as e:
            answer({'kind': 'error', 'value': '%s:%s: %s' % (name, e.lineno, e.msg)})
            sys.exit(0)
    answer({'kind': 'ok', 'value': None})
    sys.exit(0)

cpu = int(request['cpuSeconds'])
memory = int(request['memoryBytes'])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024, 16 * 1024 * 1024))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

readable = [scratch] + [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix} if p]
blocked_prefixes = ('socket.', 'subprocess.', 'os.exec', 'os.spawn', 'os.posix_spawn', 'os.fork', 'os.forkpty', 'os.system',
                    'os.kill', 'os.killpg', 'os.putenv', 'os.unsetenv', 'os.chdir', 'pty.', 'ctypes.', 'sys.addaudithook', 'os.startfile',
                    'winreg.', 'shutil.rmtree', 'os.remove', 'os.rmdir', 'os.rename', 'os.symlink', 'os.link', 'os.chmod', 'os.chown')
blocked_modules = ('ctypes', '_ctypes', '_posixsubprocess', 'multiprocessing', '_multiprocessing')

def inside(path, roots):
    return any(path == root or path.startswith(root + os.sep) for root in roots)

def hook(event, args):
    if event == 'open':
        path = args[0]
        if isinstance(path, int):
            return
        real = os.path.realpath(os.fsdecode(path))
        mode = args[1] or 'r'
        flags = args[2] or 0
        writing = any(c in str(mode) for c in 'wax+') or (flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)) != 0
        if writing and not inside(real, [scratch]):
            raise PermissionError('the evaluator sandbox allows writing only in its scratch directory: ' + real)
        if not inside(real, readable):
            raise PermissionError('the evaluator sandbox refuses to open ' + real)
    elif event == 'import' and args[0] in blocked_modules:
        raise PermissionError('the evaluator sandbox refuses to import ' + args[0])
    elif event.startswith(blocked_prefixes):
        raise PermissionError('the evaluator sandbox refuses ' + event)

logs = io.StringIO()
sys.stdout = logs
sys.stderr = logs
sys.addaudithook(hook)
sys.path.insert(0, scratch)
sys.dont_write_bytecode = True

def describe(e):
    try:
        return ('%s: %s' % (type(e).__name__, e))[:2000]
    except BaseException:
        return 'an exception that cannot be described'

def captured():
    return [line[:500] for line in logs.getvalue().splitlines()[:50]]

try:
    import importlib
    module_name = request['entryFile'][:-3] if request['entryFile'].endswith('.py') else request['entryFile']
    module = importlib.import_module(module_name.replace('/', '.'))
    fn = getattr(module, request['entryFunc'], None)
    if not callable(fn):
        answer({'kind': 'error', 'value': 'the entry file does not define a function named ' + request['entryFunc'], 'logs': captured()})
    else:
        value = fn(request['input'])
        if hasattr(value, '__dict__') and not isinstance(value, (int, float, dict)):
            value = {k: v for k, v in vars(value).items() if k in ('score', 'reason', 'metrics')}
        try:
            answer({'kind': 'ok', 'value': value, 'logs': captured()})
        except (TypeError, ValueError) as e:
            answer({'kind': 'error', 'value': 'the result cannot be serialised: ' + describe(e), 'logs': captured()})
except MemoryError:
    answer({'kind': 'memory', 'value': 'the evaluator exhausted its memory limit', 'logs': captured()})
except RecursionError as e:
    answer({'kind': 'error', 'value': describe(e), 'logs': captured()})
except BaseException as e:
    answer({'kind': 'error', 'value': describe(e), 'logs': captured()})
`;
