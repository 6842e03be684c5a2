// Module resolution hook: `electron` resolves to the recording stand-in beside
// this file (Node has no Electron); every other specifier resolves as usual.
const STAND_IN = new URL('./electron.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: STAND_IN, shortCircuit: true };
  return nextResolve(specifier, context);
}
