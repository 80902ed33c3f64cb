import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmAtTerminal } from './ask-at-terminal.js';
import { NobodyToAsk } from './ask-person.js';

const write = {
  tool: 'CrmEventsApi.SendEventData',
  request: { method: 'POST', url: 'https://api.example/send', headers: {}, body: { eventName: 'x' } },
};

/** A terminal's two ends: what the person types, and what the command shows them. */
function terminal(isTTY = true) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = Object.assign(new PassThrough(), { isTTY });
  let shown = '';
  output.on('data', (c: Buffer) => {
    shown += c.toString();
  });
  return { input, output, shown: () => shown };
}

describe('confirmAtTerminal', () => {
  it('asks nobody off a terminal, and says why, so that the write is refused rather than declined', async () => {
    for (const [inputTTY, outputTTY] of [
      [false, false],
      [true, false],
      [false, true],
    ]) {
      const input = Object.assign(new PassThrough(), { isTTY: inputTTY });
      const output = Object.assign(new PassThrough(), { isTTY: outputTTY });
      const answer = confirmAtTerminal(input, output)(write, new AbortController().signal);
      await expect(answer).rejects.toBeInstanceOf(NobodyToAsk);
      await expect(answer.catch((e: unknown) => NobodyToAsk.is(e))).resolves.toBe(true);
      await expect(answer).rejects.toThrow(/not at a terminal .*nothing was sent/);
      expect(output.read()).toBeNull();
    }
  });

  it('shows the request as it would be sent and sends only on yes', async () => {
    for (const [typed, sends] of [
      ['y', true],
      ['YES', true],
      ['n', false],
      ['', false],
    ] as const) {
      const t = terminal();
      const confirm = confirmAtTerminal(t.input, t.output);
      const answer = confirm(write, new AbortController().signal);
      t.input.write(`${typed}\n`);
      expect(await answer, typed).toBe(sends);
      expect(t.shown()).toContain('CrmEventsApi.SendEventData would send:');
      expect(t.shown()).toContain('"url": "https://api.example/send"');
    }
  });

  it('shows characters that would not show as escapes, as the confirmation over MCP does', async () => {
    const t = terminal();
    const spoof = {
      ...write,
      request: {
        ...write.request,
        body: { to: 'boss@corp.test\u202e moc.live@rekcatta', note: 'a\u2028b\u200bc' },
      },
    };
    const answer = confirmAtTerminal(t.input, t.output)(spoof, new AbortController().signal);
    t.input.write('n\n');
    await answer;
    expect(t.shown()).not.toMatch(/[\u202e\u2028\u200b]/);
    expect(t.shown()).toContain('"to": "boss@corp.test\\u202e moc.live@rekcatta"');
    expect(t.shown()).toContain('"note": "a\\u2028b\\u200bc"');
  });

  it('stops asking once the call is cancelled', async () => {
    const t = terminal();
    const stop = new AbortController();
    const answer = confirmAtTerminal(t.input, t.output)(write, stop.signal);
    stop.abort();
    await expect(answer).rejects.toThrow();
  });
});
