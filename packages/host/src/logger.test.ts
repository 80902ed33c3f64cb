import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => lines.push(line) });
  return { logger, lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it("writes pino's line format, with fields before the message", () => {
    const { logger, lines } = capture('info');
    logger.info({ tool: 'A.B', ms: 1.5 }, 'tool call');
    logger.info('plain');
    expect(lines()).toEqual([
      { level: 30, time: expect.any(Number), tool: 'A.B', ms: 1.5, msg: 'tool call' },
      { level: 30, time: expect.any(Number), msg: 'plain' },
    ]);
  });

  it('drops levels below the threshold', () => {
    const { logger, lines } = capture('warn');
    logger.info({ a: 1 }, 'hidden');
    logger.debug('hidden');
    logger.error({ err: new Error('boom') }, 'shown');
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 50, err: { message: 'boom' }, msg: 'shown' });
  });

  it('redacts credential-like keys at any depth', () => {
    const { logger, lines } = capture('info');
    logger.info(
      { token: 'a', req: { headers: { authorization: 'Bearer b' } }, user: { refreshToken: 'c' } },
      'x',
    );
    const text = JSON.stringify(lines());
    for (const secret of ['"a"', 'Bearer b', '"c"']) expect(text).not.toContain(secret);
    expect(lines()[0]).toMatchObject({
      token: '[redacted]',
      req: { headers: { authorization: '[redacted]' } },
    });
  });
});
