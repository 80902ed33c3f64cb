import { describe, expect, it } from 'vitest';
import { SpellingFixer } from './spelling.js';

describe('SpellingFixer', () => {
  const fixer = new SpellingFixer([
    'delete',
    'webhook',
    'records',
    'table',
    'label',
    'record',
    'roll',
    'poll',
    'define',
    'enable',
    'header',
  ]);

  it('corrects a letter missing, extra, wrong or two swapped, adding the fix at the end', () => {
    expect(fixer.correct('delte the webhok')).toBe('delte the webhok delete webhook');
    expect(fixer.correct('fetch recrods from a tabel')).toBe('fetch recrods from a tabel records table');
    expect(fixer.correct('webhhook')).toBe('webhhook webhook');
    expect(fixer.correct('recird')).toBe('recird record');
  });

  it('leaves known words, common words and short words alone', () => {
    expect(fixer.correct('delete the table')).toBe('delete the table');
    expect(fixer.correct('roll back these')).toBe('roll back these');
    expect(fixer.correct('globex')).toBe('globex');
  });

  it('leaves a common English word alone, however near a catalog word it is', () => {
    expect(fixer.correct('unable to read the reader')).toBe('unable to read the reader');
    expect(fixer.correct('enabel the heder')).toBe('enabel the heder enable header');
  });

  it("still reads an operation's verb inflected as the verb, which the vocabulary knows bare", () => {
    expect(fixer.correct('the test email should be deleted')).toBe('the test email should be deleted delete');
    expect(fixer.correct('the headers are missing')).toBe('the headers are missing');
  });

  it('leaves an inflected catalog word alone: corrected, it would count twice', () => {
    expect(fixer.correct('events defined in the account')).toBe('events defined in the account');
    expect(fixer.correct('defne an event')).toBe('defne an event define');
  });
});
