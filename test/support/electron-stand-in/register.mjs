// `node --import ./register.mjs out/main/index.js`: the built main, with `electron` stood in for.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
