// Module-resolve hook for the cold-start fence (registered by cold-start.child.ts):
// records every URL the loader resolves and hands the list over on request.
let port;
const resolved = [];

export function initialize(data) {
  port = data.port;
  port.on('message', () => port.postMessage(resolved.slice()));
  port.unref();
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  resolved.push(result.url);
  return result;
}
