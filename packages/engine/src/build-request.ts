import { type ParamDeclaration, REQUEST_BODY_PARAM, type ToolDeclaration, ToolError } from '@toolhost/core';
import { checkNumber, checkWellFormed, fillPath } from './encode-path.js';
import { refuseInexactValues } from './exact-numbers.js';
import { FieldsBody } from './fields-body.js';
import { type NumberTexts, stringifyWithNumbers, textsUnder } from './number-texts.js';
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

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function checkLimits(
  decl: ToolDeclaration,
  body: unknown,
  serialized: string,
  texts: NumberTexts | undefined,
): void {
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
      const itemTexts = textsUnder(texts, limits.perItem.property);
      items.forEach((item, i) => {
        const size = byteLength(stringifyWithNumbers(item, textsUnder(itemTexts, i)));
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
 * `modeBody` is the parsed request_body of a mode tool in execute mode. `numberTexts`, by
 * parameter (`request_body` for `modeBody`), says where strings stand for numbers: they go
 * into a JSON body, or JSON in a query, as bare number literals.
 */
export function buildRequest(
  decl: ToolDeclaration,
  target: RequestTarget,
  args: Arguments,
  modeBody?: unknown,
  numberTexts?: ReadonlyMap<string, NumberTexts>,
): HttpRequestSpec {
  const pathValues = new Map<string, { param: string; value: unknown }>();
  const query: QueryPair[] = [];
  const headers: Record<string, string> = { accept: 'application/json' };
  let fields: FieldsBody | undefined;

  for (const p of decl.params ?? []) {
    const value = effectiveValue(decl, p, args, target);
    if (value === undefined) continue;
    const apiName = p.apiName ?? p.name;
    // The caller's value only: not a setting's, a default, or a value mapped to the API's.
    const texts = p.fromSetting || p.apiValues ? undefined : numberTexts?.get(p.name);
    switch (p.in) {
      case 'path':
        checkScalars(p.name, value);
        pathValues.set(apiName, { param: p.name, value });
        break;
      case 'query':
        checkScalars(p.name, value);
        if (p.sendEmptyArray && Array.isArray(value) && value.length === 0) query.push([apiName, '']);
        else if (p.style === 'prefixed')
          query.push(...queryPairs(p.keyPrefix ?? '', value, 'prefixed', texts));
        else query.push(...queryPairs(apiName, value, p.style, texts));
        break;
      case 'header':
        checkScalars(p.name, value);
        headers[apiName.toLowerCase()] = String(value);
        break;
      case 'body':
        refuseInexactValues(p.name, value);
        fields ??= new FieldsBody();
        if (p.wholeBody) fields.merge(value as object, texts);
        else fields.set(p.bodyPath ?? p.name, value, texts);
        break;
    }
  }

  const path = fillPath(decl.path, pathValues);
  const qs = encodeQuery(query);
  const url = `${target.baseUrl.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;

  let body: unknown;
  if (decl.body?.kind === 'mode') body = modeBody;
  else if (decl.body?.kind === 'fields') body = fields?.value ?? {};
  const texts = decl.body?.kind === 'mode' ? numberTexts?.get(REQUEST_BODY_PARAM) : fields?.texts;

  if (body === undefined) return { method: decl.method, url, headers };
  const serialized = stringifyWithNumbers(body, texts);
  checkLimits(decl, body, serialized, texts);
  headers['content-type'] = decl.body?.contentType ?? 'application/json';
  return { method: decl.method, url, headers, body: serialized };
}
