import { createInterface } from 'node:readline/promises';
import type { ConfirmWrite } from './ask-person.js';
import { visible } from './confirmation-message.js';

/**
 * A command run at a terminal (`toolhost call` with tools.confirmWrites) asks the person there,
 * showing the request as it would be sent. Off a terminal nobody can answer: undefined, and the
 * write answers `confirmation_required` with its preview.
 */
export function confirmAtTerminal(
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  output: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
): ConfirmWrite | undefined {
  if (!input.isTTY || !output.isTTY) return undefined;
  return async ({ tool, request }, signal) => {
    const lines = createInterface({ input, output });
    // JSON.stringify leaves U+202E and the like raw: the person would read one request and confirm another.
    const shown = visible(`${tool} would send:\n${JSON.stringify(request, null, 2)}\nSend it? [y/N] `);
    const answer = await lines.question(shown, { signal }).finally(() => lines.close());
    return /^y(es)?$/i.test(answer.trim());
  };
}
