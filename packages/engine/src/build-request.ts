import { type ParamDeclaration, type ToolDeclaration, ToolError } from '@toolhost/core';
import { checkNumber, checkWellFormed, fillPath } from './encode-path.js';
import { refuseInexactValues } from './exact-numbers.js';
import { encodeQuery, type QueryPair, queryPairs } from './serialize-query.js';
import type { Arguments } from './validate-arguments.js';

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Serialized body, when the request has one. */
  body?: string;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The value a parameter sends: the caller's (or the setting's), else a documented default, mapped to the API's value. */
function effectiveValue(
  decl: ToolDeclaration,
  p: ParamDeclaration,
  args: Arguments,
  target: RequestTarget,
): unknown {
  let value = p.fromSetting ? target.settings?.[p.fromSetting] : args[p.name];
  if (p.fromSetting && p.required && (value === undefined || value === '')) {
    throw new ToolError({
      code: 'configuration_error',
      retryable: false,
      message: `${target.toolSet}.${decl.name} needs the setting ${p.fromSetting}, which is not configured: ${target.settingHint?.(target.toolSet, p.fromSetting) ?? `set toolSets.${target.toolSet}.settings.${p.fromSetting}`}.`,
    });
  }
  if (value === undefined && p.dynamicDefault === 'today') value = today();
  if (value === undefined && p.sendDefault) value = p.schema.default;
  if (value === undefined || p.apiValues === undefined) return value;
  // Own keys only: `constructor` or `toString` would read a function off the map's prototype.
  const key = String(value);
  return Object.hasOwn(p.apiValues, key) ? p.apiValues[key] : undefined;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function checkLimits(decl: ToolDeclaration, body: unknown, serialized: string): void {
  const limits = decl.body?.limits;
  if (!limits) return;
  if (limits.maxBytes !== undefined && byteLength(serialized) > limits.maxBytes) {
    throw new ToolError({
      code: 'payload_too_large',
      parameter: 'request_body',
      retryable: false,
      message: `The request body is ${byteLength(serialized)} bytes; the API accepts at most ${limits.maxBytes} bytes per request (it would silently drop a larger one).`,
    });
  }
  if (limits.perItem && typeof body === 'object' && body !== null) {
    const items = (body as Record<string, unknown>)[limits.perItem.property];
    if (Array.isArray(items)) {
      items.forEach((item, i) => {
        const size = byteLength(JSON.stringify(item));
        if (size > limits.perItem!.maxBytes) {
          throw new ToolError({
            code: 'payload_too_large',
            parameter: `request_body.${limits.perItem!.property}[${i}]`,
            retryable: false,
            message: `Item ${i} of '${limits.perItem!.property}' is ${size} bytes; the API accepts at most ${limits.perItem!.maxBytes} bytes per item.`,
          });
        }
      });
    }
  }
}

/**
 * What goes into a URL or a header: numbers written exactly, as in paths, and text that is
 * well-formed Unicode (a lone surrogate has no UTF-8 form to percent-encode or send), object
 * keys too (`prefixed` and `deepObject` queries send them).
 */
function checkScalars(param: string, value: unknown): void {
  if (typeof value === 'number') checkNumber(param, value);
  else if (typeof value === 'string') checkWellFormed(param, value);
  else if (Array.isArray(value)) for (const v of value) checkScalars(param, v);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      checkWellFormed(param, k);
      checkScalars(param, v);
    }
}

/** What a declaration resolves against: its tool set's name, the server's base URL, the configured settings. */
export interface RequestTarget {
  toolSet: string;
  baseUrl: string;
  settings?: Readonly<Record<string, unknown>>;
  /** What to do to configure a missing setting (default: set its config key). */
  settingHint?: (toolSet: string, setting: string) => string;
}

/**
 * Builds the upstream HTTP request a declaration describes from validated arguments.
 * `modeBody` is the parsed request_body of a mode tool in execute mode.
 */
export function buildRequest(
  decl: ToolDeclaration,
  target: RequestTarget,
  args: Arguments,
  modeBody?: unknown,
): HttpRequestSpec {
  const pathValues = new Map<string, { param: string; value: unknown }>();
  const query: QueryPair[] = [];
  const headers: Record<string, string> = { accept: 'application/json' };
  let fieldsBody: Record<string, unknown> | undefined;

  for (const p of decl.params ?? []) {
    const value = effectiveValue(decl, p, args, target);
    if (value === undefined) continue;
    const apiName = p.apiName ?? p.name;
    switch (p.in) {
      case 'path':
        checkScalars(p.name, value);
        pathValues.set(apiName, { param: p.name, value });
        break;
      case 'query':
        checkScalars(p.name, value);
        if (p.sendEmptyArray && Array.isArray(value) && value.length === 0) query.push([apiName, '']);
        else if (p.style === 'prefixed') query.push(...queryPairs(p.keyPrefix ?? '', value, 'prefixed'));
        else query.push(...queryPairs(apiName, value, p.style));
        break;
      case 'header':
        checkScalars(p.name, value);
        headers[apiName.toLowerCase()] = String(value);
        break;
      case 'body':
        refuseInexactValues(p.name, value);
        // Spread, not assigned: assigning an own `__proto__` key (JSON.parse makes one) sets
        // the prototype instead, and the key was silently left out of the body.
        fieldsBody ??= {};
        if (p.wholeBody) fieldsBody = { ...fieldsBody, ...(value as object) };
        else setPath(fieldsBody, p.bodyPath ?? p.name, value);
        break;
    }
  }

  const path = fillPath(decl.path, pathValues);
  const qs = encodeQuery(query);
  const url = `${target.baseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;

  let body: unknown;
  if (decl.body?.kind === 'mode') body = modeBody;
  else if (decl.body?.kind === 'fields') body = fieldsBody ?? {};

  if (body === undefined) return { method: decl.method, url, headers };
  const serialized = JSON.stringify(body);
  checkLimits(decl, body, serialized);
  headers['content-type'] = decl.body?.contentType ?? 'application/json';
  return { method: decl.method, url, headers, body: serialized };
}
