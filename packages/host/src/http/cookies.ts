/** The value of cookie `name` in a request's Cookie header; undefined when it is not there. */
export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  const prefix = `${name}=`;
  return (cookieHeader ?? '')
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(prefix))
    ?.slice(prefix.length);
}
