import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Port for `vite preview`; e2e tests and `npm start` serve the production build here. */
const DEFAULT_PREVIEW_PORT = 4173;

function previewPort(): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PREVIEW_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`PORT must be a TCP port number, got ${JSON.stringify(raw)}`);
  }
  return port;
}

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  preview: {
    port: previewPort(),
    // Fail rather than silently move to another port the tests are not looking at.
    strictPort: true,
  },
});
