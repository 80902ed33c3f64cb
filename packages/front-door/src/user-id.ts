/** The longest user id taken. */
const MOST = 256;

/**
 * Whether a text can be a user id: it keys the host's stores, logs and pages, so a long one, or
 * one with characters that do not show as themselves (controls, C1's CSI among them, which a
 * terminal runs in `connections list`; format characters such as bidi overrides; line and
 * paragraph separators; lone surrogates; Hangul fillers and the braille blank, letters that draw
 * nothing, so `alice\u3164` read as `alice`), names nobody: refused, not cut or cleaned. The one
 * rule for every door: the front door's token claims and the own authorization server's
 * sign-ins alike.
 */
export function isUserId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MOST &&
    !/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0\u2800]/u.test(value)
  );
}
