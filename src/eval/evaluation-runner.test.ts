import { describe, expect, test } from 'vitest';
import { DOCUMENT_LIMITS } from '../engine/index.js';
import { documentContent } from './evaluation-runner.js';

const LIMIT = DOCUMENT_LIMITS.textMaxLength;

describe('documentContent', () => {
  test('title and text as they are when they fit; no title field when the title is empty', () => {
    expect(documentContent({ id: 'a', title: 'Reef', text: 'Fish.' })).toEqual({
      content: { title: 'Reef', text: 'Fish.' },
      truncated: false,
    });
    expect(documentContent({ id: 'b', title: '', text: 'Fish.' })).toEqual({
      content: { text: 'Fish.' },
      truncated: false,
    });
  });

  test('exactly at the limit (title + newline + text) is left alone', () => {
    const title = 'T'.repeat(10);
    const text = 'x'.repeat(LIMIT - 11);
    expect(documentContent({ id: 'c', title, text })).toEqual({ content: { title, text }, truncated: false });
  });

  test('a longer text is cut at a word boundary so that title, newline and text fit the limit', () => {
    const title = 'A title';
    const text = 'word '.repeat(LIMIT); // 5 × LIMIT characters
    const { content, truncated } = documentContent({ id: 'd', title, text });
    expect(truncated).toBe(true);
    expect(content.title).toBe(title);
    expect(title.length + 1 + content.text.length).toBeLessThanOrEqual(LIMIT);
    expect(title.length + 1 + content.text.length).toBeGreaterThan(LIMIT - 100);
    expect(content.text.endsWith('word')).toBe(true);
    expect(text.startsWith(content.text)).toBe(true);
  });

  test('a text without spaces is cut at the limit, never inside a surrogate pair', () => {
    const text = '😀'.repeat(LIMIT); // two UTF-16 units each
    const { content } = documentContent({ id: 'e', title: '', text });
    expect(content.text.length).toBe(LIMIT);
    const even = documentContent({ id: 'f', title: 'T', text }).content.text; // room LIMIT - 2: even, fine
    expect(even.length).toBe(LIMIT - 2);
    const shifted = documentContent({ id: 'g', title: 'TT', text }).content.text; // room LIMIT - 3: odd
    expect(shifted.length).toBe(LIMIT - 4);
    expect(shifted.endsWith('😀')).toBe(true);
  });
});
