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

  it('redacts credentials nested deeper, in any case, and among an error’s own properties', () => {
    const { logger, lines } = capture('info');
    const failure = Object.assign(new Error('upstream refused'), {
      config: { url: 'https://api.example/x', headers: { Authorization: 'Bearer d' } },
    });
    const fields = { call: 1, a: { b: { c: { access_token: 'e' } } }, list: [{ Token: 'f' }] };
    logger.warn({ ...fields, err: failure }, 'y');
    const text = JSON.stringify(lines());
    for (const secret of ['Bearer d', '"e"', '"f"']) expect(text).not.toContain(secret);
    expect(lines()[0]).toMatchObject({
      call: 1,
      a: { b: { c: { access_token: '[redacted]' } } },
      list: [{ Token: '[redacted]' }],
      err: {
        message: 'upstream refused',
        config: { url: 'https://api.example/x', headers: { Authorization: '[redacted]' } },
      },
    });
    // What was logged is not changed.
    expect(fields.a.b.c.access_token).toBe('e');
    expect(failure.config.headers.Authorization).toBe('Bearer d');
  });
});
