// `node --import <this file>`: appends the URL of every module the process loads
// to the file named by GF_MODULE_LOG (a real process, no mocks: what it loads is what it pays for).
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.GF_MODULE_LOG, url + '\\n');
  return next(url, context);
}
`)}`,
);
