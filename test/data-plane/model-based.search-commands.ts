import type fc from 'fast-check';
import { expect } from 'vitest';
import {
  docsOf,
  expectCurrentHits,
  expected,
  FILTERS,
  liveDocs,
  type Model,
  NAMESPACES,
  type Real,
  search,
} from './model-based.model.js';

/**
 * The search commands of the model-based test (model-based.test.ts); model-based.commands.ts
 * generates them beside the writes.
 */
type Command = fc.AsyncCommand<Model, Real>;
const q = JSON.stringify;
const ALL = { includeData: true, includeMetadata: true };

/** The current version's unique word: that document first (and only, without enrichment), in its namespace only. */
export class SearchLive implements Command {
  constructor(
    readonly pick: number,
    readonly enrichment: boolean,
    readonly elsewhere: number,
  ) {}
  check = (model: Readonly<Model>) => liveDocs(model as Model).length > 0;
  async run(model: Model, real: Real) {
    const docs = liveDocs(model);
    const { namespace, id, version } = docs[this.pick % docs.length];
    const { hits, what } = await search(real, namespace, version.word, { enrichment: this.enrichment });
    expect(hits[0], `${this}: ${what}`).toEqual({ ...expected(id, version, ALL), score: expect.any(Number) });
    if (!this.enrichment) expect(hits, `${this}: ${what}`).toHaveLength(1);
    expectCurrentHits(model, namespace, hits, `${this}: ${what}`);
    // Another namespace never finds it.
    const other = NAMESPACES.filter((name) => name !== namespace)[this.elsewhere % (NAMESPACES.length - 1)];
    const away = await search(real, other, version.word, { enrichment: this.enrichment });
    expectCurrentHits(model, other, away.hits, `${this}: ${away.what}`);
    if (!this.enrichment) expect(away.hits, `${this}: ${away.what}`).toEqual([]);
  }
  toString = () => `searchLive(#${this.pick}, enrichment ${this.enrichment})`;
}

/** A replaced or removed version's word finds nothing (or, with enrichment, only live documents). */
export class SearchRetired implements Command {
  constructor(
    readonly pick: number,
    readonly enrichment: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.retired.length > 0;
  async run(model: Model, real: Real) {
    const { namespace, word } = model.retired[this.pick % model.retired.length];
    const { hits, what } = await search(real, namespace, word, { enrichment: this.enrichment });
    expectCurrentHits(model, namespace, hits, `${this}: ${what}`);
    for (const hit of hits) expect(docsOf(model, namespace).get(hit.id)!.words.has(word)).toBe(false);
    if (!this.enrichment) expect(hits, `${this}: ${what}`).toEqual([]);
  }
  toString = () => `searchRetired(#${this.pick}, enrichment ${this.enrichment})`;
}

/** A live document's word with a filter: found exactly when the filter matches it. */
export class SearchFiltered implements Command {
  constructor(
    readonly pick: number,
    readonly filter: number,
  ) {}
  check = (model: Readonly<Model>) => liveDocs(model as Model).length > 0;
  async run(model: Model, real: Real) {
    const docs = liveDocs(model);
    const { namespace, id, version } = docs[this.pick % docs.length];
    const { text, matches } = FILTERS[this.filter];
    const { hits, what } = await search(real, namespace, version.word, { filter: text });
    expect(hits, `${this}: ${what}`).toEqual(
      matches(version) ? [{ ...expected(id, version, ALL), score: expect.any(Number) }] : [],
    );
  }
  toString = () => `searchFiltered(#${this.pick}, ${q(FILTERS[this.filter].text)})`;
}

/**
 * Hybrid or semantic search (the vector side: graphs, pending vectors, reranking), whose ranking the
 * README leaves to the embedder: at most topK distinct hits, all live with their current version,
 * all matching the filter.
 */
export class SearchHybrid implements Command {
  constructor(
    readonly namespace: string,
    readonly query: { live: number } | { retired: number } | { word: string },
    readonly semanticWeight: number,
    readonly filter: number | undefined,
    readonly reranking: boolean,
    readonly topK: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const docs = liveDocs(model);
    const text =
      'word' in this.query
        ? this.query.word
        : 'live' in this.query
          ? (docs[this.query.live % Math.max(docs.length, 1)]?.version.word ?? 'apple')
          : (model.retired[this.query.retired % Math.max(model.retired.length, 1)]?.word ?? 'apple');
    const filter = this.filter === undefined ? undefined : FILTERS[this.filter];
    const { hits, what } = await search(real, this.namespace, text, {
      semanticWeight: this.semanticWeight,
      filter: filter?.text,
      reranking: this.reranking,
      topK: this.topK,
      enrichment: true,
    });
    const label = `${this}: ${what}`;
    expectCurrentHits(model, this.namespace, hits, label);
    expect(hits.length, label).toBeLessThanOrEqual(this.topK);
    expect(new Set(hits.map((hit) => hit.id)).size, `${label}: duplicates`).toBe(hits.length);
    if (filter) {
      for (const hit of hits) expect(filter.matches(docsOf(model, this.namespace).get(hit.id)!), label).toBe(true);
    }
  }
  toString = () =>
    `searchHybrid(${q(this.namespace)}, ${q(this.query)}, semanticWeight ${this.semanticWeight}, filter ${q(this.filter === undefined ? null : FILTERS[this.filter].text)}, reranking ${this.reranking}, topK ${this.topK})`;
}

/** A shared word: exactly min(topK, documents having it) hits, all current, best first. */
export class SearchWord implements Command {
  constructor(
    readonly namespace: string,
    readonly word: string,
    readonly topK: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const { hits, what } = await search(real, this.namespace, this.word, { topK: this.topK });
    const having = [...docsOf(model, this.namespace)].filter(([, v]) => v.words.has(this.word)).length;
    expectCurrentHits(model, this.namespace, hits, `${this}: ${what}`);
    for (const hit of hits) expect(docsOf(model, this.namespace).get(hit.id)!.words.has(this.word)).toBe(true);
    expect(hits.length, `${this}: ${what}`).toBe(Math.min(this.topK, having));
    expect(new Set(hits.map((hit) => hit.id)).size, `${this}: duplicates`).toBe(hits.length);
  }
  toString = () => `searchWord(${q(this.namespace)}, ${q(this.word)}, topK ${this.topK})`;
}
