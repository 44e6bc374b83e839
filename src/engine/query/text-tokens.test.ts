import { describe, expect, it } from 'vitest';
import { flattenText, scanWords, stringValues, textFields, tokenize } from './text-tokens.js';

/** The definition of the tokens: NFKD, marks removed, lowercase, runs of letters and digits. */
function reference(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A linear congruential generator: the random texts are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('tokenize', () => {
  it('splits ASCII text into lowercase runs of letters and digits', () => {
    expect(tokenize('The p53-MDM2 loop, e.g. in U.S. mice (n=12): 3x faster!')).toEqual(
      'the p53 mdm2 loop e g in u s mice n 12 3x faster'.split(' '),
    );
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' ...\t\n')).toEqual([]);
  });

  it('folds text beyond ASCII as a whole where folding can reach across characters', () => {
    const texts = [
      'Amélie Ærøskøbing straße ǅemal ﬁnance Ⅻ ½ x² ٣ 三 ＡＢＣ１２',
      'KELVIN \u212a sign, İstanbul',
      // A final sigma is lowercased by what surrounds it, past case-ignorable ASCII only.
      "ΟΔΟΣ. ΟΔΟΣ.Α ΟΔΟΣ:Α ΟΔΟΣ'Α ΟΔΟΣ^Α ΟΔΟΣ`Α ΟΔΟΣ Α ΟΔΟΣ-Α ΟΔΟΣ",
      'a \u0301b c\u0301 d\u0301\u0327e naïve café coöperate',
      'β-catenin (TNF-α) 10 µM ± 2 °C – 5’-UTR “quoted” emoji 😀 text \ud800 lone',
    ];
    for (const text of texts) expect(tokenize(text)).toEqual(reference(text));
  });

  it('equals the definition on random mixes of ASCII and other characters', () => {
    const next = random(8);
    const alphabet = [..."aZ9 .:'^`-,\t_"].concat([...'éΣσςΑß²ﬁİ\u0301\u212a½ＡØ三😀']);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from(
        { length: Math.floor(next() * 24) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      ).join('');
      expect(tokenize(text)).toEqual(reference(text));
    }
  });

  it('reports ASCII words in place and other tokens as strings', () => {
    const words = scanWords('Hello wörld ok', { bounds: new Int32Array(2), count: 0, strings: [], ascii: true });
    expect(words.ascii).toBe(false);
    expect(words.count).toBe(3);
    expect([...words.bounds.subarray(0, 6)]).toEqual([0, 5, -1, 0, 12, 14]);
    expect(words.strings).toEqual(['world']);
  });
});

describe('text fields of a document', () => {
  it('takes strings as they are and numbers and booleans after their field names', () => {
    expect(
      textFields({
        title: 'Star Wars',
        year: 1977,
        released: true,
        sequel: null,
        cast: ['Hamill', 'Ford'],
        scores: [9, 8.5],
        studio: { name: 'Lucasfilm', founded: 1971 },
      }),
    ).toEqual([
      'Star Wars',
      'year 1977',
      'released true',
      'Hamill',
      'Ford',
      'scores 9',
      'scores 8.5',
      'Lucasfilm',
      'founded 1971',
    ]);
    expect(flattenText({ data: 1 })).toBe('data 1');
  });

  it('counts only the string values toward the length limit', () => {
    expect(stringValues({ title: 'Star Wars', year: 1977, cast: ['Hamill', { age: 30 }] })).toEqual([
      'Star Wars',
      'Hamill',
    ]);
  });
});
