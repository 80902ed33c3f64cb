import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (never a browser download): CI installs the package when missing. */
export function chromiumPath(): string {
  const path =
    process.env.CHROMIUM_PATH ??
    execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser || true'], {
      encoding: 'utf8',
    }).trim();
  if (!path) throw new Error('Chromium is not installed: apt-get install chromium (or set CHROMIUM_PATH)');
  return path;
}

/** Headless Chromium for a test's browser steps. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
}
