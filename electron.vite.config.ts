// Builds main (ESM), preload (CJS: sandboxed preloads cannot be ES modules)
// and the renderer into out/. The renderer's CSP meta tag is injected from the
// same constant the Electron session and the bridge send as a header.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { META_CONTENT_SECURITY_POLICY } from './core/api/security';

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve('electron/main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    base: './',
    plugins: [
      react(),
      {
        name: 'gf-csp',
        transformIndexHtml: (html: string) => html.replace('%GF_CSP%', META_CONTENT_SECURITY_POLICY),
      },
    ],
    build: {
      outDir: resolve('out/renderer'),
      emptyOutDir: true,
      // electron-vite leaves bundles unminified; the renderer's parse time is part of every launch.
      minify: true,
      // One app chunk (React, Arrow, the screens) behind a small entry chunk that starts the first calls.
      chunkSizeWarningLimit: 800,
      rollupOptions: { input: { index: resolve('renderer/index.html') } },
    },
  },
});
