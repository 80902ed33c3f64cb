import { readFileSync } from 'node:fs';

/** Every plugin package this suite depends on: the suites cover all of them. */
export function pluginPackages(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return Object.keys(pkg.devDependencies).filter((n) => n.startsWith('@toolhost/plugin-'));
}
