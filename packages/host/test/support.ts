import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A directory whose node_modules holds fixture plugins (echo: compatible; future: contract 2.0). */
export const fixtureApp = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'app');
