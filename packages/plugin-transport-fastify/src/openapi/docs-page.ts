import type { OpenAPIV3_1 } from 'openapi-types';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A self-contained API reference page rendered from the OpenAPI document: no scripts or assets from
 * elsewhere, so it works on a machine with no internet access. `prefix` is where the document is mounted.
 */
export function renderDocsPage(doc: OpenAPIV3_1.Document, prefix = ''): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'patch', 'delete'] as const) {
      const op = item?.[method];
      if (!op) continue;
      const params = (op.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
      const rows = params
        .map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${escapeHtml(String((p.schema as { type?: string })?.type ?? ''))}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`)
        .join('');
      // The body's first media type (application/json, or multipart/form-data for a file upload).
      const [mediaType, content] = Object.entries((op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content ?? {})[0] ?? [];
      const body = mediaType ? `<details><summary>Request body schema (${escapeHtml(mediaType)})</summary><pre>${escapeHtml(JSON.stringify(content?.schema, null, 2))}</pre></details>` : '';
      const html = `<section id="${escapeHtml(op.operationId ?? '')}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3><p>${escapeHtml(op.summary ?? '')}</p>${rows ? `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Description</th></tr>${rows}</table>` : ''}${body}</section>`;
      const tag = op.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<li><a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a></li>`).join('');
  const sections = [...byTag.entries()].map(([t, ops]) => `<h2 id="tag-${escapeHtml(t)}">${escapeHtml(t)}</h2>${ops.join('')}`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d2330}code,pre{font-family:ui-monospace,monospace}pre{background:#f4f5f7;padding:.75rem;overflow:auto}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d8dbe2;padding:.25rem .5rem;text-align:left}.m{display:inline-block;min-width:4.5rem;font-size:.8rem;padding:.1rem .4rem;border-radius:3px;color:#fff}.get{background:#2f7d32}.post{background:#1e5fb4}.patch{background:#a66300}.delete{background:#b3261e}section{border-top:1px solid #e3e5ea;padding:.5rem 0}</style></head>
<body><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1><p>${escapeHtml(doc.info.description ?? '')}</p><p>Authenticate every call with <code>Authorization: Bearer &lt;API key&gt;</code>. Machine-readable document: <a href="${escapeHtml(prefix)}/openapi.json">${escapeHtml(prefix)}/openapi.json</a>.</p><ul>${nav}</ul>${sections}</body></html>`;
}
