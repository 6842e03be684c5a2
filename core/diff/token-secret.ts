// The workspace diff's page-token key: the engine's key file (core/paging/key-file.ts) under the project's `cache/diff/`.
export { loadTokenSecret, TOKEN_SECRET_PATH, tokenSecretInMemory } from '../paging/key-file';
