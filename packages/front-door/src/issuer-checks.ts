import { discoverIssuer } from './issuer-metadata.js';

/** One finding of a check, as `toolhost doctor` lists it: whether it is well, and what was found. */
export interface DoorCheck {
  ok: boolean;
  line: string;
}

/** What the checks read of the front door's settings: the issuer, and how tokens are checked. */
export interface IssuerCheckSettings {
  issuer: string;
  /** The key set to use instead of the metadata's `jwks_uri`. */
  jwksUri?: string | undefined;
  /** Opaque tokens, introspected as this client at this endpoint (else the metadata's). */
  introspection?: { endpoint?: string | undefined; clientId: string } | undefined;
}

/**
 * Whether the issuer answers its metadata, and where tokens would be checked: its introspection
 * endpoint, or its key set (fetched, its keys counted). Each finding a line; nothing throws.
 */
export async function issuerChecks(auth: IssuerCheckSettings): Promise<DoorCheck[]> {
  let metadata: Awaited<ReturnType<typeof discoverIssuer>>;
  try {
    metadata = await discoverIssuer(auth.issuer);
  } catch (e) {
    return [
      {
        ok: false,
        line: `issuer: ${auth.issuer} UNREACHABLE or serves no metadata: ${(e as Error).message}`,
      },
    ];
  }
  const checks: DoorCheck[] = [{ ok: true, line: `issuer: ${auth.issuer} answers its metadata` }];
  if (auth.introspection) {
    const endpoint = auth.introspection.endpoint ?? metadata.introspection_endpoint;
    checks.push(
      endpoint
        ? { ok: true, line: `introspection: ${endpoint} (as client ${auth.introspection.clientId})` }
        : {
            ok: false,
            line: 'introspection: the issuer names NO introspection endpoint; set introspection.endpoint',
          },
    );
    return checks;
  }
  const jwksUri = auth.jwksUri ?? metadata.jwks_uri;
  if (!jwksUri)
    return [
      ...checks,
      { ok: false, line: 'JWKS: the issuer names NO jwks_uri; set http.authorization.jwksUri' },
    ];
  try {
    const res = await fetch(jwksUri, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { keys?: unknown[] };
    const count = Array.isArray(body.keys) ? body.keys.length : 0;
    checks.push(
      res.ok && count > 0
        ? { ok: true, line: `JWKS: ${jwksUri} has ${count} key${count === 1 ? '' : 's'}` }
        : { ok: false, line: `JWKS: ${jwksUri} answered HTTP ${res.status} with ${count} keys` },
    );
  } catch (e) {
    checks.push({ ok: false, line: `JWKS: ${jwksUri} UNREACHABLE: ${(e as Error).message}` });
  }
  return checks;
}
