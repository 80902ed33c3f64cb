import { createHash } from 'node:crypto';
import type { ProviderService } from '../auth/provider-services.js';
import type { Connection } from '../connections.js';
import { esc, STYLE_SRC } from './html-pages.js';
import { CONNECTIONS_PATH } from './page-paths.js';

/**
 * Turns each `<time>` into the reader's own local date and time: only the browser knows its
 * time zone. The page allows this one script by its hash; without it the relative time and
 * the UTC time in the title remain.
 */
const LOCAL_TIMES_SCRIPT =
  "for(const t of document.querySelectorAll('time[datetime]')){t.textContent=new Date(t.dateTime).toLocaleString(undefined,{dateStyle:'medium',timeStyle:'short'})+' ('+t.textContent+')';}";

/** The pages' CSP with the local-times script allowed by its hash (and nothing else). */
export const CONNECTIONS_CSP = `default-src 'none'; ${STYLE_SRC}; script-src 'sha256-${createHash('sha256').update(LOCAL_TIMES_SCRIPT).digest('base64')}'; form-action 'self'; frame-ancestors 'none'`;

// Made at the first page shown: building it loads ICU's locale data (about 17 ms), which a
// host that never shows the page need not spend at its start.
let relative: Intl.RelativeTimeFormat | undefined;

/** `in 59 minutes`, `3 hours ago`: true in any time zone, so the server can say it. */
function fromNow(at: number, now: number): string {
  const seconds = Math.round((at - now) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 365 * 86_400],
    ['month', 30 * 86_400],
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ];
  relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units)
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(seconds, 'second');
}

function expiry(expiresAt: number | undefined, now: number): string {
  if (!expiresAt) return 'does not expire';
  const iso = new Date(expiresAt).toISOString();
  const utc = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return `<time datetime="${iso}" title="${utc}">${esc(fromNow(expiresAt, now))}</time>`;
}

function serviceCell(providerId: string, services: ReadonlyMap<string, ProviderService>): string {
  const name = services.get(providerId)?.name ?? providerId;
  return name === providerId ? esc(providerId) : `${esc(name)} <small>(${esc(providerId)})</small>`;
}

/** The table of connections, each with a Disconnect button that asks for confirmation first. */
export function connectionsTable(
  rows: readonly Connection[],
  services: ReadonlyMap<string, ProviderService>,
  showUsers: boolean,
  now = Date.now(),
): string {
  if (rows.length === 0) return '<p id="none">No connections.</p>';
  const cells = rows
    .map((r) => {
      const ask = `${CONNECTIONS_PATH}/disconnect?${new URLSearchParams({ user: r.userId, provider: r.providerId })}`;
      return `<tr>${showUsers ? `<td data-label="User">${esc(r.userId)}</td>` : ''}<td data-label="Service">${serviceCell(r.providerId, services)}</td><td data-label="Account">${r.account ? esc(r.account) : '<small>(not known)</small>'}</td><td data-label="Scopes">${esc(r.scopes.join(' ')) || '<small>(none)</small>'}</td><td data-label="Access token expires">${expiry(r.expiresAt, now)}</td><td><a class="button" href="${esc(ask)}">Disconnect</a></td></tr>`;
    })
    .join('');
  return `<table><thead><tr>${showUsers ? '<th>User</th>' : ''}<th>Service</th><th>Account</th><th>Scopes</th><th>Access token expires</th><th></th></tr></thead><tbody>${cells}</tbody></table><script>${LOCAL_TIMES_SCRIPT}</script>`;
}

/** Links that start a connection with each service (the person approves it at the vendor). */
export function connectLinks(services: ReadonlyMap<string, ProviderService>): string {
  if (services.size === 0) return '';
  const links = [...services]
    .map(
      ([id, s]) =>
        `<li><a href="${CONNECTIONS_PATH}/connect?${new URLSearchParams({ provider: id })}">Connect ${esc(s.name)}</a></li>`,
    )
    .join('');
  return `<h2>Connect a service</h2><ul id="connect">${links}</ul>`;
}

export const SIGN_OUT_FORM = `<form method="post" action="${CONNECTIONS_PATH}/sign-out"><button type="submit">Sign out</button></form>`;

/** The confirmation asked before a connection is ended. */
export function confirmDisconnect(user: string, providerId: string, service: string, self: boolean): string {
  return `<p>${self ? 'Your' : `${esc(user)}’s`} tools that use ${esc(service)} will ask to authorize again, and the grant is revoked at the vendor where it allows that.</p><form method="post" action="${CONNECTIONS_PATH}/disconnect"><input type="hidden" name="user" value="${esc(user)}"><input type="hidden" name="provider" value="${esc(providerId)}"><button type="submit">Yes, disconnect</button> <a href="${CONNECTIONS_PATH}">Cancel</a></form>`;
}
