import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { MAX_OUTPUTS, MAX_STATUS_CONDITIONS, MAX_STATUS_DEPTH, MAX_STATUS_JSON_BYTES } from '../limits.js';
import { mergeWrittenStatus, parseStatusFile } from './statusfile.js';

describe('parseStatusFile', () => {
  it('keeps a nested document as written', () => {
    const doc = { message: 'ready', endpoint: { host: 'db', ports: [5432, 5433] }, replicas: 3, tls: true };
    expect(parseStatusFile(stringify(doc))).toEqual({ values: doc });
  });

  it('keeps nothing of an empty file', () => {
    expect(parseStatusFile('')).toEqual({});
    expect(parseStatusFile('{}')).toEqual({});
  });

  it('takes a message that is not text as its JSON', () => {
    expect(parseStatusFile('message: {a: 1}')).toEqual({ values: { message: '{"a":1}' } });
  });

  it('names each bound a file breaks', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_OUTPUTS + 1 }, (_, i) => [`k${i}`, i]));
    expect(parseStatusFile(stringify(many))).toEqual({
      error: `$KRT_STATUS has ${MAX_OUTPUTS + 1} keys, more than ${MAX_OUTPUTS}`,
    });
    let deep: unknown = 'bottom';
    for (let i = 0; i < MAX_STATUS_DEPTH; i++) deep = { n: deep };
    expect(parseStatusFile(stringify({ top: deep }))).toEqual({
      error: `$KRT_STATUS top${'.n'.repeat(MAX_STATUS_DEPTH - 1)}: nested deeper than ${MAX_STATUS_DEPTH} levels`,
    });
    let fits: unknown = 'bottom';
    for (let i = 0; i < MAX_STATUS_DEPTH - 2; i++) fits = { n: fits };
    expect(parseStatusFile(stringify({ top: fits }))).toHaveProperty('values');
    expect(parseStatusFile(stringify({ list: [[[[[[[[1]]]]]]]] }))).toEqual({
      error: `$KRT_STATUS list[0][0][0][0][0][0][0]: nested deeper than ${MAX_STATUS_DEPTH} levels`,
    });
    const big = { a: 'x'.repeat(MAX_STATUS_JSON_BYTES) };
    expect(parseStatusFile(stringify(big))).toEqual({
      error: `$KRT_STATUS is ${MAX_STATUS_JSON_BYTES + 8} bytes as JSON, more than ${MAX_STATUS_JSON_BYTES}`,
    });
    expect(parseStatusFile(`message: ${'m'.repeat(5000)}`)).toEqual({
      error: '$KRT_STATUS message: longer than 4096 characters',
    });
  });

  it('keeps conditions with the fields of a Kubernetes condition', () => {
    const text = stringify({
      conditions: [
        { type: 'DatabaseReady', status: 'True', reason: 'Provisioned', message: 'up', extra: 'dropped' },
        { type: 'example.com/Backup', status: 'Unknown' },
      ],
    });
    expect(parseStatusFile(text)).toEqual({
      values: {
        conditions: [
          { type: 'DatabaseReady', status: 'True', reason: 'Provisioned', message: 'up' },
          { type: 'example.com/Backup', status: 'Unknown' },
        ],
      },
    });
  });

  it('refuses a malformed condition, naming the field', () => {
    const bad = (conditions: unknown) => parseStatusFile(stringify({ conditions }));
    expect(bad('Ready')).toEqual({ error: '$KRT_STATUS conditions: must be a list' });
    expect(bad(['Ready'])).toEqual({ error: '$KRT_STATUS conditions[0]: must be a mapping' });
    expect(bad([{ status: 'True' }])).toEqual({
      error: '$KRT_STATUS conditions[0].type: must be a condition type such as Ready or example.com/Ready',
    });
    expect(bad([{ type: 'has space', status: 'True' }])).toHaveProperty('error');
    expect(bad([{ type: 'Ready', status: 'yes' }])).toEqual({
      error: '$KRT_STATUS conditions[0].status: must be True, False or Unknown',
    });
    expect(bad([{ type: 'Ready', status: 'True', reason: 'not camel' }])).toEqual({
      error: '$KRT_STATUS conditions[0].reason: must be a CamelCase word such as DatabaseReady',
    });
    expect(bad([{ type: 'Ready', status: 'True', message: 7 }])).toEqual({
      error: '$KRT_STATUS conditions[0].message: must be text of at most 4096 characters',
    });
    expect(
      bad([
        { type: 'A', status: 'True' },
        { type: 'A', status: 'False' },
      ]),
    ).toEqual({ error: '$KRT_STATUS conditions[1].type: A is set twice' });
    const many = Array.from({ length: MAX_STATUS_CONDITIONS + 1 }, (_, i) => ({
      type: `C${i}`,
      status: 'True',
    }));
    expect(bad(many)).toEqual({
      error: `$KRT_STATUS conditions: ${MAX_STATUS_CONDITIONS + 1} conditions, more than ${MAX_STATUS_CONDITIONS}`,
    });
  });
});

describe('mergeWrittenStatus', () => {
  it('merges documents in order, a later value winning at the top level', () => {
    expect(
      mergeWrittenStatus([
        { a: 1, nested: { x: 1, y: 2 } },
        { b: 2, nested: { x: 3 } },
      ]),
    ).toEqual({ a: 1, b: 2, nested: { x: 3 } });
  });

  it('drops what would break the bounds, keeping the first keys', () => {
    const docs = Array.from({ length: MAX_OUTPUTS + 5 }, (_, i) => ({ [`k${i}`]: i }));
    const merged = mergeWrittenStatus(docs);
    expect(Object.keys(merged)).toHaveLength(MAX_OUTPUTS);
    expect(merged).toHaveProperty('k0', 0);
    expect(merged).not.toHaveProperty(`k${MAX_OUTPUTS}`);
    const half = 'x'.repeat(MAX_STATUS_JSON_BYTES / 2);
    const sized = mergeWrittenStatus([{ a: half }, { b: half }, { c: 'small' }]);
    expect(Object.keys(sized)).toEqual(['a', 'c']);
    expect(Buffer.byteLength(JSON.stringify(sized))).toBeLessThanOrEqual(MAX_STATUS_JSON_BYTES);
    // A later, smaller value of a kept key still replaces it.
    expect(mergeWrittenStatus([{ a: half }, { a: 'short' }, { b: half }])).toEqual({ a: 'short', b: half });
  });

  it('counts bytes as the API server will: the merged document never exceeds the bound', () => {
    const docs = Array.from({ length: 40 }, (_, i) => ({ [`key-${i}`]: 'v'.repeat(400 + i) }));
    const merged = mergeWrittenStatus(docs);
    const bytes = Buffer.byteLength(JSON.stringify(merged));
    expect(bytes).toBeLessThanOrEqual(MAX_STATUS_JSON_BYTES);
    expect(bytes).toBeGreaterThan(MAX_STATUS_JSON_BYTES - 500);
  });
});
