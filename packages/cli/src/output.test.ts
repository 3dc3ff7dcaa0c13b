import { describe, expect, it } from 'vitest';
import { cellText, detailTable, renderTable, resourceTable } from './output.js';
import { Progress, bar, formatBytes } from './progress.js';
import { memoryStream } from './io.js';
import { buildBody } from './values.js';

describe('tables', () => {
  it('aligns columns two spaces apart and does not pad the last one', () => {
    expect(renderTable(['ID', 'STATE'], [['a', 'READY'], ['longer-id', '']])).toBe('ID         STATE\na          READY\nlonger-id\n');
  });

  it('shortens resource names on request and prints objects as compact JSON', () => {
    const columns = [{ header: 'ID', path: 'name', short: true }, { header: 'P', path: 'jobProgress.percent' }, { header: 'X', path: 'x' }];
    expect(resourceTable(columns, [{ name: 'accounts/a/models/m', jobProgress: { percent: 40 }, x: { y: [1] } }])).toBe('ID  P   X\nm   40  {"y":[1]}\n');
    expect(cellText(undefined)).toBe('');
    expect(detailTable({ name: 'n', on: true })).toBe('FIELD  VALUE\nname   n\non     true\n');
  });
});

describe('progress', () => {
  it('draws a bar of 30 cells and sizes in binary units', () => {
    expect(bar(0.5)).toBe(`[${'#'.repeat(15)}${'-'.repeat(15)}]`);
    expect(bar(2)).toBe(`[${'#'.repeat(30)}]`);
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });

  it('on a terminal redraws one line and ends it once', () => {
    const out = memoryStream({ isTTY: true });
    const p = new Progress(out, { label: 'job' });
    p.update(0.1, 'RUNNING');
    p.update(0.1, 'RUNNING');
    p.update(1, 'COMPLETED');
    p.finish();
    expect(out.text()).toBe(`\r\x1b[2Kjob ${bar(0.1)}  10% RUNNING\r\x1b[2Kjob ${bar(1)} 100% COMPLETED\n`);
  });

  it('off a terminal prints a line per change, or per step crossed', () => {
    const out = memoryStream();
    const p = new Progress(out, { label: 'up', plainStep: 50 });
    for (const f of [0, 0.2, 0.4, 0.6, 1]) p.update(f, '');
    p.finish();
    expect(out.text()).toBe(`up ${bar(0)}   0%\nup ${bar(0.6)}  60%\nup ${bar(1)} 100%\n`);
  });
});

describe('request bodies from flags', () => {
  const fields = [
    { flag: 'display-name', path: 'displayName', type: 'string', description: '' },
    { flag: 'hub-files', path: 'baseModelDetails.hubFiles', type: 'list', description: '' },
    { flag: 'training-config', path: 'trainingConfig', type: 'json', description: '' },
    { flag: 'base-model', path: 'trainingConfig.baseModel', type: 'string', description: '' },
  ] as const;

  it('sets nested paths, applies JSON flags first, and masks only what was given', () => {
    const { body, paths } = buildBody({
      file: { description: 'from file' },
      options: { displayName: 'X', hubFiles: 'a,b', trainingConfig: '{"epochs":2}', baseModel: 'm' },
      fields,
      sets: ['contextLength=8192', 'conversationConfig.style=chat'],
    });
    expect(body).toEqual({
      description: 'from file', displayName: 'X', baseModelDetails: { hubFiles: ['a', 'b'] },
      trainingConfig: { epochs: 2, baseModel: 'm' }, contextLength: 8192, conversationConfig: { style: 'chat' },
    });
    expect(paths.sort()).toEqual(['baseModelDetails.hubFiles', 'contextLength', 'conversationConfig.style', 'description', 'displayName', 'trainingConfig']);
  });
});
