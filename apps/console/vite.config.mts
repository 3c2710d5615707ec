import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The console is static files the gateway serves at /console (dist/apps/console).
// `vite --config apps/console/vite.config.mts` serves it on :5173 against a gateway on :8080.
export default defineConfig({
  root: here('./web'),
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: {
      '@switchyard/client': here('../../libs/client/src/index.ts'),
      '@switchyard/contracts': here('../../libs/contracts/src/index.ts'),
    },
  },
  build: { outDir: here('../../dist/apps/console'), emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/v1': process.env['SWITCHYARD_GATEWAY_URL'] ?? 'http://127.0.0.1:8080' } },
});
