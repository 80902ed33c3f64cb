import { createInterface } from 'node:readline/promises';
import { type ConfirmWrite, NobodyToAsk } from './ask-person.js';
import { visible } from './confirmation-message.js';

const OFF_TERMINAL =
  'This host asks a person before any write (tools.confirmWrites, --confirm-writes or TOOLHOST_CONFIRM_WRITES), ' +
  'and this command is not at a terminal (stdin and stderr must both be one), so nobody can be asked; ' +
  'nothing was sent. Run it at a terminal to be asked, or without that setting to send the request as it is.';

/**
 * A command run at a terminal (`toolhost call` with tools.confirmWrites) asks the person there,
 * showing the request as it would be sent. Off a terminal (piped, a script) nobody can answer:
 * the write is refused (`confirmation_required`), saying so, with nothing sent. Not a preview to
 * apply, as a client that cannot ask gets: the command has no way to apply one.
 */
export function confirmAtTerminal(
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  output: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
): ConfirmWrite {
  if (!input.isTTY || !output.isTTY) return () => Promise.reject(new NobodyToAsk(OFF_TERMINAL));
  return async ({ tool, request }, signal) => {
    const lines = createInterface({ input, output });
    // JSON.stringify leaves U+202E and the like raw: the person would read one request and confirm another.
    const shown = visible(`${tool} would send:\n${JSON.stringify(request, null, 2)}\nSend it? [y/N] `);
    const answer = await lines.question(shown, { signal }).finally(() => lines.close());
    return /^y(es)?$/i.test(answer.trim());
  };
}
