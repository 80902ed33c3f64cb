import { createInterface } from 'node:readline/promises';
import type { ConfirmWrite } from './ask-person.js';

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
    const shown = `${tool} would send:\n${JSON.stringify(request, null, 2)}\nSend it? [y/N] `;
    const answer = await lines.question(shown, { signal }).finally(() => lines.close());
    return /^y(es)?$/i.test(answer.trim());
  };
}
