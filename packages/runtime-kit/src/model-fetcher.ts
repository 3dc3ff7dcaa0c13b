import { createHash } from 'node:crypto';
import type { ModelFileSource } from '@berth/core';

/** One file a replica downloads: where it goes, where it comes from, and what it must be. */
export interface FetchPlanFile {
  readonly path: string;
  /** A short-lived signed GET URL on the gateway. */
  readonly url: string;
  readonly size: number;
  readonly sha256: string;
}

/** What the fetcher downloads into one directory. */
export interface FetchPlan {
  readonly dir: string;
  readonly files: readonly FetchPlanFile[];
}

/**
 * The fetch plan of a model's files: each file's signed URL made absolute on `gatewayUrl`, valid for
 * `ttlSeconds`.
 */
export function fetchPlanOf(source: ModelFileSource, dir: string, gatewayUrl: string, ttlSeconds: number): FetchPlan {
  const base = gatewayUrl.replace(/\/+$/, '');
  return {
    dir,
    files: source.files.map((file) => ({ path: file.path, url: `${base}${source.signedUrl(file.path, ttlSeconds)}`, size: file.sizeBytes, sha256: file.sha256 })),
  };
}

/** The directory of an add-on under a replica's model cache: one per add-on name. */
export function addonDirectory(modelCachePath: string, name: string): string {
  return `${modelCachePath}/addons/${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/**
 * The model fetcher, a Python 3 program on the standard library only, so it runs in the engine image
 * itself (vLLM and SGLang images carry Python): no extra image, no credential beyond the plan's signed URLs.
 *
 * - `python3 -c SCRIPT once` downloads the plan in `BERTH_FETCH_PLAN` (JSON {@link FetchPlan}) and exits:
 *   the `model-download` init container of an uploaded base model.
 * - `python3 -c SCRIPT serve PORT` answers `POST /fetch` with a plan (JSON body), downloading it and
 *   answering `{"dir": …}`, and `GET /health`: the `addon-fetcher` sidecar the gateway asks before it asks
 *   the engine to load an add-on from that directory.
 *
 * Every file is streamed to `<path>.part`, checked against its size and SHA-256, then renamed; a mismatch
 * fails naming the file. A file already there with the right size and SHA-256 (an add-on reloaded after
 * an eviction, a restarted init container) is not downloaded again. Plans may only write under `BERTH_FETCH_ROOT` and only fetch URLs under
 * `BERTH_GATEWAY_URL`, so the sidecar cannot be turned into a general downloader.
 */
export const modelFetcherScript = String.raw`
import hashlib, json, os, sys, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GATEWAY = os.environ.get('BERTH_GATEWAY_URL', '').rstrip('/')
ROOT = os.path.realpath(os.environ.get('BERTH_FETCH_ROOT', '/models'))

def inside(parent, child):
    return child == parent or child.startswith(parent + os.sep)

def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, 'rb') as source:
        for chunk in iter(lambda: source.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()

def fetch(plan):
    root = os.path.realpath(plan['dir'])
    if not inside(ROOT, root):
        raise ValueError('the directory %s is outside %s' % (plan['dir'], ROOT))
    for f in plan['files']:
        name, url = f['path'], f['url']
        if not GATEWAY or not url.startswith(GATEWAY + '/'):
            raise ValueError('%s: the URL is not on the gateway %s' % (name, GATEWAY))
        target = os.path.realpath(os.path.join(root, name))
        if not inside(root, target) or target == root:
            raise ValueError('%s: the path leaves the model directory' % name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isfile(target) and os.path.getsize(target) == f['size'] and sha256_of(target) == f['sha256']:
            continue
        digest, size, part = hashlib.sha256(), 0, target + '.part'
        try:
            with urllib.request.urlopen(url, timeout=300) as response, open(part, 'wb') as out:
                while True:
                    chunk = response.read(1 << 20)
                    if not chunk:
                        break
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
        except Exception as error:
            if os.path.exists(part):
                os.remove(part)
            raise ValueError('%s: download failed: %s' % (name, error))
        if size != f['size'] or digest.hexdigest() != f['sha256']:
            os.remove(part)
            raise ValueError('%s: got %d bytes with SHA-256 %s; %d bytes with SHA-256 %s were recorded'
                             % (name, size, digest.hexdigest(), f['size'], f['sha256']))
        os.replace(part, target)
    return root

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer(200 if self.path == '/health' else 404, {'status': 'ok'})

    def do_POST(self):
        if self.path != '/fetch':
            return self.answer(404, {'error': 'not found'})
        try:
            plan = json.loads(self.rfile.read(int(self.headers.get('content-length', '0'))))
            self.answer(200, {'dir': fetch(plan)})
        except Exception as error:
            self.answer(400, {'error': str(error)})

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

if sys.argv[1] == 'once':
    try:
        fetch(json.loads(os.environ['BERTH_FETCH_PLAN']))
    except Exception as error:
        print('model download failed: %s' % error, file=sys.stderr)
        sys.exit(1)
else:
    ThreadingHTTPServer(('0.0.0.0', int(sys.argv[2])), Handler).serve_forever()
`;
