import { escapeHtml } from './pages.js';
import { isLoopbackHost } from './redirect-uris.js';

/**
 * What the consent page says of where the person's answer (the code) goes. A client named by a
 * metadata document proves its identity by its host; an answer sent elsewhere is worth a
 * warning, and so is one sent to this computer (the MCP authorization spec asks for one): any
 * program running here may present a remote client's id with its loopback redirect URI, and
 * is then shown under that client's name.
 */
export function answerTargetNote(redirectUri: string, documentId: string | undefined, name: string): string {
  const target = new URL(redirectUri);
  const targetHost = escapeHtml(target.host || target.protocol);
  const from = documentId === undefined ? undefined : new URL(documentId);
  if (from && !isLoopbackHost(from.hostname) && isLoopbackHost(target.hostname))
    return `<p class="warn">It will receive your answer at ${targetHost}, a program on this computer: ${escapeHtml(from.host)} cannot vouch for which program that is. Allow it only if you just started ${escapeHtml(name)} here yourself.</p>`;
  if (from && target.hostname !== from.hostname && !isLoopbackHost(target.hostname))
    return `<p class="warn">It will receive your answer at ${targetHost}, not at ${escapeHtml(from.host)}.</p>`;
  return `<p class="muted">Your answer goes to ${targetHost}.</p>`;
}
