import fc from 'fast-check';
import { expect } from 'vitest';
import {
  AUTHORS,
  applyUpsert,
  call,
  type DocSpec,
  docsOf,
  expected,
  expectedRange,
  FILTERS,
  GENRES,
  IDS,
  liveDocs,
  type Model,
  NAMESPACES,
  newVersion,
  PREFIXES,
  type Real,
  rangeAll,
  removeWhere,
  reopen,
  resultOf,
  search,
  VOCAB,
  verifyAll,
  verifyInfo,
} from './model-based.model.js';
import { SearchFiltered, SearchHybrid, SearchLive, SearchRetired, SearchWord } from './model-based.search-commands.js';

/**
 * The commands of the model-based test (model-based.test.ts): each sends one operation (or a
 * burst of them) and checks the answer against the model before updating it. `commands` generates
 * them, weighted towards writes.
 */
type Command = fc.AsyncCommand<Model, Real>;
const q = JSON.stringify;
const ALL = { includeData: true, includeMetadata: true };

class Upsert implements Command {
  constructor(
    readonly namespace: string,
    readonly docs: DocSpec[],
    readonly single: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const versions = this.docs.map((spec) => newVersion(model, spec));
    const body = versions.map(({ sent }) => sent);
    const response = await call(real, 'upsert-data', this.namespace, this.single ? body[0] : body);
    expect(resultOf(response, this.toString())).toBe('Success');
    // In order: the last version of an id in a batch wins.
    for (const { sent, version } of versions) applyUpsert(model, this.namespace, sent.id, version);
  }
  toString = () => `upsert(${q(this.namespace)}, ${this.single ? 'single ' : ''}${q(this.docs)})`;
}

class Fetch implements Command {
  constructor(
    readonly namespace: string,
    readonly ids: string[],
    readonly flags: { includeData: boolean; includeMetadata: boolean } | null,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    // null flags: the bare array form, which returns ids only.
    const body = this.flags ? { ids: this.ids, ...this.flags } : this.ids;
    const flags = this.flags ?? { includeData: false, includeMetadata: false };
    const docs = docsOf(model, this.namespace);
    const result = resultOf(await call(real, 'fetch', this.namespace, body), this.toString());
    expect(result, this.toString()).toEqual(
      this.ids.map((id) => (docs.has(id) ? expected(id, docs.get(id)!, flags) : null)),
    );
  }
  toString = () => `fetch(${q(this.namespace)}, ${q(this.ids)}, ${q(this.flags)})`;
}

class FetchPrefix implements Command {
  constructor(
    readonly namespace: string,
    readonly prefix: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const flags = { includeData: true, includeMetadata: true };
    const response = await call(real, 'fetch', this.namespace, { prefix: this.prefix, ...flags });
    expect(resultOf(response, this.toString()), this.toString()).toEqual(
      expectedRange(model, this.namespace, this.prefix, flags),
    );
  }
  toString = () => `fetchPrefix(${q(this.namespace)}, ${q(this.prefix)})`;
}

class Range implements Command {
  constructor(
    readonly namespace: string,
    readonly limit: number,
    readonly prefix: string | undefined,
    readonly flags: { includeData: boolean; includeMetadata: boolean },
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const pages = await rangeAll(real, this.namespace, { limit: this.limit, prefix: this.prefix, ...this.flags });
    expect(pages, this.toString()).toEqual(expectedRange(model, this.namespace, this.prefix ?? '', this.flags));
  }
  toString = () => `range(${q(this.namespace)}, limit ${this.limit}, prefix ${q(this.prefix)}, ${q(this.flags)})`;
}

class DeleteIds implements Command {
  constructor(
    readonly namespace: string,
    readonly ids: string[],
    readonly form: 'object' | 'array' | 'single',
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const body = this.form === 'object' ? { ids: this.ids } : this.form === 'array' ? this.ids : this.ids[0];
    const wanted = new Set(this.form === 'single' ? [this.ids[0]] : this.ids);
    const removed = removeWhere(model, this.namespace, (id) => wanted.has(id));
    const result = resultOf(await call(real, 'delete', this.namespace, body), this.toString());
    expect(result, this.toString()).toEqual({ deleted: removed });
  }
  toString = () => `deleteIds(${q(this.namespace)}, ${q(this.ids)}, ${this.form})`;
}

class DeletePrefix implements Command {
  constructor(
    readonly namespace: string,
    readonly prefix: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const removed = removeWhere(model, this.namespace, (id) => id.startsWith(this.prefix));
    const result = resultOf(await call(real, 'delete', this.namespace, { prefix: this.prefix }), this.toString());
    expect(result, this.toString()).toEqual({ deleted: removed });
  }
  toString = () => `deletePrefix(${q(this.namespace)}, ${q(this.prefix)})`;
}

class DeleteFilter implements Command {
  constructor(
    readonly namespace: string,
    readonly filter: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const { text, matches } = FILTERS[this.filter];
    const removed = removeWhere(model, this.namespace, (_, version) => matches(version));
    const result = resultOf(await call(real, 'delete', this.namespace, { filter: text }), this.toString());
    expect(result, this.toString()).toEqual({ deleted: removed });
  }
  toString = () => `deleteFilter(${q(this.namespace)}, ${q(FILTERS[this.filter].text)})`;
}

class Reset implements Command {
  constructor(readonly namespace: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    removeWhere(model, this.namespace, () => true); // the namespace itself stays
    expect(resultOf(await call(real, 'reset', this.namespace), this.toString())).toBe('Success');
  }
  toString = () => `reset(${q(this.namespace)})`;
}

class ResetAll implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    for (const name of model.namespaces.keys()) removeWhere(model, name, () => true);
    expect(resultOf(await call(real, 'reset?all', null), this.toString())).toBe('Success');
  }
  toString = () => 'resetAll()';
}

class DeleteNamespace implements Command {
  constructor(readonly namespace: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const response = await call(real, 'delete-namespace', this.namespace);
    const what = `${this} → ${response.statusCode} ${response.body}`;
    if (this.namespace === '') {
      expect([response.statusCode, JSON.parse(response.body).code], what).toEqual([400, 'invalid_request']);
    } else if (!model.namespaces.has(this.namespace)) {
      expect([response.statusCode, JSON.parse(response.body).status], what).toEqual([404, 404]);
    } else {
      expect(resultOf(response, what)).toBe('Success');
      removeWhere(model, this.namespace, () => true);
      model.namespaces.delete(this.namespace);
    }
  }
  toString = () => `deleteNamespace(${q(this.namespace)})`;
}

class Describe implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    await verifyInfo(model, real);
    const names = resultOf(await call(real, 'list-namespaces', null), 'list-namespaces') as string[];
    expect([...names].sort(), 'list-namespaces').toEqual([...model.namespaces.keys()].sort());
  }
  toString = () => 'describe()';
}

/**
 * Writes to distinct documents sent at once (PostgreSQL: spread over both nodes), with searches
 * whose answer no write of the burst changes: an untouched document's word, a retired word.
 */
class Burst implements Command {
  constructor(
    readonly writes: { namespace: string; spec: DocSpec; remove: boolean }[],
    readonly pick: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const nodes = real.world.nodes.length;
    const touched = new Set(this.writes.map((w) => `${w.namespace}/${w.spec.id}`));
    const untouched = liveDocs(model).filter(({ namespace, id }) => !touched.has(`${namespace}/${id}`));
    const stable = untouched.length > 0 ? untouched[this.pick % untouched.length] : undefined;
    const retired = model.retired.length > 0 ? model.retired[this.pick % model.retired.length] : undefined;
    const writes = this.writes.map(async ({ namespace, spec, remove }, i) => {
      const what = `${this} #${i}`;
      if (remove) {
        const present = docsOf(model, namespace).has(spec.id);
        const response = await call(real, 'delete', namespace, { ids: [spec.id] }, i % nodes);
        expect(resultOf(response, what), what).toEqual({ deleted: present ? 1 : 0 });
        return () => removeWhere(model, namespace, (id) => id === spec.id);
      }
      const { version, sent } = newVersion(model, spec);
      expect(resultOf(await call(real, 'upsert-data', namespace, [sent], i % nodes), what)).toBe('Success');
      return () => applyUpsert(model, namespace, spec.id, version);
    });
    const reads = [
      stable &&
        (async () => {
          const { hits, what } = await search(real, stable.namespace, stable.version.word, { node: 1 % nodes });
          expect(hits, `${this}: ${what}`).toEqual([
            { ...expected(stable.id, stable.version, ALL), score: expect.any(Number) },
          ]);
        })(),
      retired &&
        (async () => {
          const { hits, what } = await search(real, retired.namespace, retired.word, { node: 0 });
          expect(hits, `${this}: ${what}`).toEqual([]);
        })(),
    ];
    // Every request settles before the run goes on (or fails with the first error).
    const settled = await Promise.allSettled([...writes, ...reads]);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    for (const outcome of settled.slice(0, writes.length)) (outcome as PromiseFulfilledResult<() => void>).value();
  }
  toString = () =>
    `burst(${q(this.writes.map(({ namespace, spec, remove }) => (remove ? { delete: [namespace, spec.id] } : { upsert: [namespace, spec] })))}, #${this.pick})`;
}

/** Close the app and build a new one on the same store (PostgreSQL: sometimes a new node's empty data dir). */
class Reopen implements Command {
  constructor(readonly freshDataDir: boolean) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await reopen(real.world, this.freshDataDir && real.world.ctx.databaseUrl !== undefined);
    await verifyAll(model, real);
  }
  toString = () => `reopen(${this.freshDataDir ? 'fresh data dir on PostgreSQL' : 'same data dir'})`;
}

/** PostgreSQL: the following requests go to the other node (README: a write on any node is visible on every node at once). */
class SwitchNode implements Command {
  check = () => true;
  async run(_model: Model, real: Real) {
    real.world.current = (real.world.current + 1) % real.world.nodes.length;
  }
  toString = () => 'switchNode() (a no-op on SQLite)';
}

const namespace = fc.constantFrom(...NAMESPACES);
const id = fc.constantFrom(...IDS);
const prefix = fc.constantFrom(...PREFIXES);
const flags = fc.record({ includeData: fc.boolean(), includeMetadata: fc.boolean() });
const filter = fc.nat(FILTERS.length - 1);
const metadata = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.record(
    {
      rank: fc.nat(5),
      color: fc.constantFrom<'red' | 'blue'>('red', 'blue'),
      flag: fc.boolean(),
    },
    { requiredKeys: ['rank'] },
  ),
);
const docSpec: fc.Arbitrary<DocSpec> = fc.record({
  id,
  title: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 2 }),
  body: fc.array(fc.constantFrom(...VOCAB), { maxLength: 3 }),
  genre: fc.constantFrom(...GENRES),
  author: fc.option(fc.constantFrom(...AUTHORS), { nil: undefined }),
  metadata,
});

export const commands: fc.Arbitrary<Command>[] = [
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(namespace, fc.array(docSpec, { minLength: 1, maxLength: 5 }), fc.boolean())
        .map(([ns, docs, single]) => new Upsert(ns, docs, single && docs.length === 1)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(namespace, fc.array(id, { minLength: 1, maxLength: 6 }), fc.option(flags, { nil: null }))
        .map(([ns, ids, f]) => new Fetch(ns, ids, f)),
    },
    { weight: 1, arbitrary: fc.tuple(namespace, prefix).map(([ns, p]) => new FetchPrefix(ns, p)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(namespace, fc.integer({ min: 1, max: 4 }), fc.option(prefix, { nil: undefined }), flags)
        .map(([ns, limit, p, f]) => new Range(ns, limit, p, f)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(namespace, fc.array(id, { minLength: 1, maxLength: 4 }), fc.constantFrom('object', 'array', 'single'))
        .map(([ns, ids, form]) => new DeleteIds(ns, ids, form as 'object' | 'array' | 'single')),
    },
    { weight: 1, arbitrary: fc.tuple(namespace, prefix).map(([ns, p]) => new DeletePrefix(ns, p)) },
    { weight: 1, arbitrary: fc.tuple(namespace, filter).map(([ns, f]) => new DeleteFilter(ns, f)) },
    { weight: 1, arbitrary: namespace.map((ns) => new Reset(ns)) },
    { weight: 1, arbitrary: namespace.map((ns) => new DeleteNamespace(ns)) },
    { weight: 1, arbitrary: fc.constant(new Describe()) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.nat(), fc.boolean(), fc.nat()).map(([p, e, o]) => new SearchLive(p, e, o)),
    },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.boolean()).map(([p, e]) => new SearchRetired(p, e)) },
    { weight: 1, arbitrary: fc.tuple(fc.nat(), filter).map(([p, f]) => new SearchFiltered(p, f)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(namespace, fc.constantFrom(...VOCAB, ...GENRES), fc.integer({ min: 1, max: 4 }))
        .map(([ns, w, k]) => new SearchWord(ns, w, k)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          namespace,
          fc.oneof(
            fc.nat().map((live) => ({ live })),
            fc.nat().map((retired) => ({ retired })),
            fc.constantFrom(...VOCAB, ...GENRES).map((word) => ({ word })),
          ),
          fc.constantFrom(0.5, 0.75, 1),
          fc.option(filter, { nil: undefined }),
          fc.boolean(),
          fc.integer({ min: 1, max: 5 }),
        )
        .map(([ns, query, w, f, rerank, topK]) => new SearchHybrid(ns, query, w, f, rerank, topK)),
    },
    { weight: 1, arbitrary: fc.constant(new ResetAll()) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.uniqueArray(fc.record({ namespace, spec: docSpec, remove: fc.boolean() }), {
            minLength: 2,
            maxLength: 6,
            selector: (w) => `${w.namespace}/${w.spec.id}`,
          }),
          fc.nat(),
        )
        .map(([writes, pick]) => new Burst(writes, pick)),
    },
    { weight: 1, arbitrary: fc.boolean().map((fresh) => new Reopen(fresh)) },
    { weight: 1, arbitrary: fc.constant(new SwitchNode()) },
  ),
];
