// What a V8 heap snapshot (.heapsnapshot, as node --heapsnapshot-signal
// writes it) holds, by kind of object: count and self size per group, so two
// snapshots of one process (idle, and with N responses held) give what each
// held response keeps alive. A snapshot collects garbage first, so only live
// objects are counted. Groups: an object by its constructor, a closure by its
// function's name, a string by its kind, an array by its role, the rest by
// node type and name.
import { readFileSync } from 'node:fs';

export interface HeapGroup {
  count: number;
  bytes: number;
}

export interface HeapSummary {
  readonly totalBytes: number;
  readonly nodes: number;
  readonly groups: ReadonlyMap<string, HeapGroup>;
}

interface SnapshotFile {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: [string[], ...unknown[]] } };
  readonly nodes: number[];
  readonly strings: string[];
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

function groupOf(type: string, name: string): string {
  if (STRING_TYPES.has(type)) return `(${type})`;
  if (type === 'code' || type === 'number' || type === 'bigint' || type === 'symbol' || type === 'regexp') return `(${type})`;
  if (type === 'closure') return `closure ${name || '(anonymous)'}`;
  if (type === 'object' || type === 'native' || type === 'hidden' || type === 'array' || type === 'object shape' || type === 'synthetic') {
    // Names like "system / Context" and "(object elements)"; cut a long name (some are source text).
    return `${type} ${name.length > 60 ? `${name.slice(0, 57)}…` : name}`;
  }
  return `(${type}) ${name.slice(0, 40)}`;
}

export function summarizeHeap(file: string): HeapSummary {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as SnapshotFile;
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, HeapGroup>();
  let totalBytes = 0;
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] as number] ?? '?';
    const name = strings[nodes[i + nameAt] as number] ?? '';
    const size = nodes[i + sizeAt] as number;
    const key = groupOf(type, name);
    const group = groups.get(key);
    if (group) {
      group.count++;
      group.bytes += size;
    } else groups.set(key, { count: 1, bytes: size });
    totalBytes += size;
  }
  return { totalBytes, nodes: nodes.length / width, groups };
}

/** Per held response: each group's growth from `idle` to `held`, divided by `perCount`, largest first. */
export function heapGrowth(idle: HeapSummary, held: HeapSummary, perCount: number): { key: string; count: number; bytes: number }[] {
  const rows: { key: string; count: number; bytes: number }[] = [];
  for (const [key, group] of held.groups) {
    const before = idle.groups.get(key) ?? { count: 0, bytes: 0 };
    rows.push({ key, count: (group.count - before.count) / perCount, bytes: (group.bytes - before.bytes) / perCount });
  }
  return rows.sort((a, b) => b.bytes - a.bytes);
}
