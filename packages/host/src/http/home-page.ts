import type { ServerResponse } from 'node:http';
import type { Host } from '../host-api.js';
import { esc, page } from './html-pages.js';

export interface HomePageInput {
  host: Host;
  /** The URL clients reach this server at. */
  base: string;
  /** The MCP path, or undefined when this server serves only the OAuth pages (stdio mode). */
  mcpPath: string | undefined;
  serverInfo?: { name: string; version: string };
  /** Whether figures may be shown: without access tokens only loopback clients reach the host. */
  showFigures: boolean;
}

/**
 * `GET /`: what a person who opens the host's address in a browser needs, instead of a 404:
 * which server this is, the MCP endpoint to give a client, and the other pages.
 */
export function answerHome(res: ServerResponse, input: HomePageInput): true {
  const { host, base, mcpPath, serverInfo, showFigures } = input;
  const name = serverInfo ? `${serverInfo.name} ${serverInfo.version}` : 'toolhost';
  const items: string[] = [];
  if (mcpPath) {
    const endpoint = new URL(mcpPath, base).href;
    items.push(
      `<li>MCP endpoint (Streamable HTTP): <code>${esc(endpoint)}</code>; give this URL to your MCP client.</li>`,
    );
  }
  if (host.oauthProviders.length > 0)
    items.push(
      '<li><a href="/connections">Your connections</a>: the accounts you have connected, and signing in.</li>',
    );
  items.push('<li><a href="/healthz">/healthz</a>: health, as JSON.</li>');
  let figures = '';
  if (showFigures) {
    const sets = [...new Set(host.listTools().map((t) => t.toolSet))].sort();
    figures = `<p>${host.listTools().length} tools in ${sets.length} tool set${sets.length === 1 ? '' : 's'}${sets.length ? `: ${sets.map(esc).join(', ')}` : ''}.</p>`;
  }
  page(res, 200, name, 'This host serves SaaS API tools to AI agents over the Model Context Protocol.', {
    body: `${figures}<ul>${items.join('')}</ul>`,
  });
  return true;
}
