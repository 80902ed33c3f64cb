import { describe, expect, it } from 'vitest';
import { answerTargetNote } from './answer-target.js';

describe('where the consent page says the answer goes', () => {
  const document = 'https://claude.example/oauth/client.json';

  it('warns of an answer to this computer for a client known by its published document', () => {
    const note = answerTargetNote('http://127.0.0.1:9999/cb', document, 'Claude <Code>');
    expect(note).toContain('class="warn"');
    expect(note).toContain('127.0.0.1:9999, a program on this computer: claude.example cannot vouch');
    expect(note).toContain('you just started Claude &lt;Code&gt; here yourself');
    expect(answerTargetNote('http://localhost:9999/cb', document, 'Claude')).toContain(
      'a program on this computer',
    );
  });

  it('warns of an answer to another site than the document’s', () => {
    const note = answerTargetNote('https://evil.example/cb', document, 'Claude');
    expect(note).toBe(
      '<p class="warn">It will receive your answer at evil.example, not at claude.example.</p>',
    );
  });

  it('only says where it goes for the document’s own site, a document on this computer, or a registered client', () => {
    expect(answerTargetNote('https://claude.example/cb', document, 'Claude')).toBe(
      '<p class="muted">Your answer goes to claude.example.</p>',
    );
    expect(
      answerTargetNote('http://127.0.0.1:9999/cb', 'http://127.0.0.1:4711/client.json', 'Local'),
    ).toContain('class="muted"');
    expect(answerTargetNote('http://127.0.0.1:9999/cb', undefined, 'Registered')).toContain('class="muted"');
  });
});
