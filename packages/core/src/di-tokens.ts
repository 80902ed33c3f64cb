/**
 * Injection tokens. Strings rather than symbols or classes, so that two copies of core
 * (independently versioned plugins) still agree on them.
 */
export const TOOL_SET = 'toolhost:tool-set';
export const AUTH_PROVIDER = 'toolhost:auth-provider';
export const SECRET_SOURCE = 'toolhost:secret-source';
export const HTTP_SENDER = 'toolhost:http-sender';
