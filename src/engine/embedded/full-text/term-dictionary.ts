import type { Term } from '../../query/analyzer.js';

/** Numbers the dictionaries of this process (0 is no dictionary). */
let dictionaries = 0;

/**
 * The terms of one full-text index, numbered densely in the order they are first added, with a
 * surface form (a folded word) of each for spelling suggestions. Resolving an analyzer {@link Term}
 * goes through the term's memo when this dictionary wrote it, so a term of a document being written
 * is looked up in the Map once, not once per component that needs its id.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  /** Names this dictionary in the terms' memos; a rebuilt (compacted) index has a new one. */
  private readonly serial = ++dictionaries;
  readonly texts: string[] = [];
  readonly surfaces: string[] = [];

  get size(): number {
    return this.texts.length;
  }

  /** The id of a term text, undefined when it was never added. */
  get(text: string): number | undefined {
    return this.ids.get(text);
  }

  /** The id of an analyzer term, undefined when it was never added. */
  known(term: Term): number | undefined {
    if (term.fullTextDictionary === this.serial) return term.fullTextId;
    const id = this.ids.get(term.text);
    if (id !== undefined) this.remember(term, id);
    return id;
  }

  /** The id of an analyzer term, added when new (a new term's id is the number of terms before it). */
  idOf(term: Term, surface: string): number {
    const known = this.known(term);
    if (known !== undefined) return known;
    const id = this.insert(term.text, surface);
    this.remember(term, id);
    return id;
  }

  /** The id of a term text, added when new. */
  add(text: string, surface: string): number {
    return this.ids.get(text) ?? this.insert(text, surface);
  }

  /** Adds a term known to be new; returns its id. */
  private insert(text: string, surface: string): number {
    const id = this.texts.length;
    this.ids.set(text, id);
    this.texts.push(text);
    this.surfaces.push(surface);
    return id;
  }

  private remember(term: Term, id: number): void {
    term.fullTextDictionary = this.serial;
    term.fullTextId = id;
  }
}
